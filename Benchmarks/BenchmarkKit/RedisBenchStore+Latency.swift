import CBaseline

extension RedisBenchStore {
    /// What one run of timed GETs found and took.
    struct FetchLatencies {
        /// The replies: live cards, missing keys and card bytes, as `fetch`
        /// counts them. Compare it with what the names should find before
        /// trusting the times: a broken run is fast too.
        let tally: FetchTally
        /// Each fetch's time in seconds, in the order of the names.
        let latencies: [Double]
        /// Wall time of the whole run, all threads, in seconds.
        let seconds: Double

        /// Fetches answered per second of the whole run.
        var fetchesPerSecond: Double { Double(latencies.count) / seconds }
    }

    /// One `GET` per name (16 bytes each), from `threads` threads, each
    /// taking a contiguous share of the names, every fetch timed on its own
    /// (`cb_redis_fetch_latencies`): the anchor of clip fetches from 1, 8 and
    /// 50 concurrent connections.
    ///
    /// - Parameter connectionPerFetch: false: one connection per thread,
    ///   opened before the clock starts. True: each fetch connects to the
    ///   server's Unix socket, sends its `GET` and closes, all timed, as a
    ///   clip process that starts for one fetch does.
    func fetchLatencies(_ names: [UInt8], threads: Int, connectionPerFetch: Bool) throws -> FetchLatencies {
        let count = names.count / 16
        var latencies = [UInt64](repeating: 0, count: count)
        var tally = cb_fetch_tally()
        var elapsed: UInt64 = 0
        try check(
            cb_redis_fetch_latencies(
                opened, names, count, Int32(threads), connectionPerFetch ? 1 : 0, &latencies, &tally, &elapsed))
        return FetchLatencies(
            tally: FetchTally(live: Int(tally.live), expired: Int(tally.expired), missing: Int(tally.missing), bytes: Int(tally.bytes)),
            latencies: latencies.map { Double($0) * 1e-9 },
            seconds: Double(elapsed) * 1e-9)
    }
}
