/// The sizes of the HTTP workload (issue 26, `HTTPWorkload`): the shares a
/// gateway and nginx serve, the concurrencies `wrk` drives them at, and how
/// long each `wrk` run lasts. Nil in the results of runs from before it, and
/// in `BenchConfiguration.smoke`: the all-workload smoke test leaves it out,
/// and `HTTPWorkloadSmokeTests` runs it at `smoke` sizes on its own.
public struct HTTPBenchConfiguration: Codable, Sendable {
    /// Shares (9:1 photo mix) the gateway's store holds, and nginx's files.
    public var shares: Int
    /// Concurrent connections, one row each (`wrk -c`).
    public var connections: [Int]
    /// Seconds of each `wrk` run (`wrk -d`), one per system, row and round.
    public var seconds: Int
    /// Rounds; the systems' order rotates each round. Figures are medians.
    public var rounds: Int
    /// Seconds each server is driven before the first round, over the whole
    /// id list, so the page cache, LMDB's pages and nginx's `open_file_cache`
    /// are warm for every row.
    public var warmUpSeconds: Int
    /// Idle keep-alive connections held open for the RSS measurement.
    public var idleConnections: Int
    /// Seconds they are held, idle, before RSS is read again (well under
    /// the gateway's 10 s header timeout, which would close them).
    public var idleSeconds: Int

    public static let full = HTTPBenchConfiguration(
        shares: 100_000, connections: [1, 8, 50], seconds: 5, rounds: 3, warmUpSeconds: 5, idleConnections: 1000, idleSeconds: 3)
    public static let quick = HTTPBenchConfiguration(
        shares: 10_000, connections: [1, 8, 50], seconds: 2, rounds: 2, warmUpSeconds: 2, idleConnections: 1000, idleSeconds: 2)
    /// For `HTTPWorkloadSmokeTests`: every row and system, 1 s runs.
    public static let smoke = HTTPBenchConfiguration(
        shares: 200, connections: [1, 8, 50], seconds: 1, rounds: 1, warmUpSeconds: 1, idleConnections: 100, idleSeconds: 1)
}
