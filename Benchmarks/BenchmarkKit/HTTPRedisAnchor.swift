import Foundation

/// The Redis rows of the HTTP workload: the existing harness's timed `GET`s
/// (`RedisBenchStore.fetchLatencies`: hiredis client threads in this
/// process, one per connection, over the server's Unix socket) of the same
/// id list, with its server moved to the server cores and its client
/// threads started on the client cores.
final class HTTPRedisAnchor {
    private let store: RedisBenchStore
    /// The redis-server process; nil when it was not found in /proc.
    let pid: pid_t?
    /// 16 bytes per entry of the id list.
    private let names: [UInt8]
    /// Whether each entry of the id list is unknown.
    private let unknown: [Bool]
    private let pinning: CPUPinning
    /// Fetches per second seen so far per (threads, a connection per fetch),
    /// to size the next run to the row's seconds.
    private var rates: [String: Double] = [:]

    init(store: RedisBenchStore, directory: String, names: [UInt8], picks: [HTTPBenchFiles.Pick], pinning: CPUPinning) throws {
        self.store = store
        self.names = names
        unknown = picks.map { if case .unknown = $0 { true } else { false } }
        self.pinning = pinning
        pid = Self.server(in: directory)
        if let pid { try pinning.move(pid, to: pinning.server) }
    }

    /// `GET`s for about `seconds` from `threads` clients: the id list in
    /// turn from its start, as many as the last run's rate allows (the
    /// first run of a kind, 2,000, only measures the rate).
    ///
    /// - Throws: `BenchError.mismatch` when Redis did not find exactly the
    ///   live ids.
    func fetch(threads: Int, connectionPerFetch: Bool, seconds: Int) throws -> HTTPRowResult {
        let kind = "\(threads)-\(connectionPerFetch)"
        if rates[kind] == nil { _ = try fetchCount(2000, threads: threads, connectionPerFetch: connectionPerFetch) }
        let count = max(1000, Int((rates[kind] ?? 1000) * Double(seconds)))
        return try fetchCount(count, threads: threads, connectionPerFetch: connectionPerFetch)
    }

    private func fetchCount(_ count: Int, threads: Int, connectionPerFetch: Bool) throws -> HTTPRowResult {
        let entries = names.count / 16
        var batch: [UInt8] = []
        batch.reserveCapacity(16 * count)
        var missing = 0
        for k in 0..<count {
            let entry = k % entries
            batch += names[16 * entry ..< 16 * entry + 16]
            if unknown[entry] { missing += 1 }
        }
        let cpuBefore = pid.flatMap { ProcStatus.cpuSeconds(of: $0) }
        let fetched = try pinning.onClientCores {
            try store.fetchLatencies(batch, threads: threads, connectionPerFetch: connectionPerFetch)
        }
        let cpuAfter = pid.flatMap { ProcStatus.cpuSeconds(of: $0) }
        guard fetched.tally.live == count - missing, fetched.tally.missing == missing else {
            throw BenchError.mismatch("Redis found \(fetched.tally.live) live and \(fetched.tally.missing) missing of \(count - missing) and \(missing)")
        }
        rates["\(threads)-\(connectionPerFetch)"] = fetched.fetchesPerSecond
        let latencies = Latencies(fetched.latencies)
        return HTTPRowResult(
            requestsPerSecond: fetched.fetchesPerSecond, requests: count, p50: latencies.milliseconds(0.5), p99: latencies.milliseconds(0.99),
            notFound: missing, errors: 0, cpuSeconds: cpuBefore.flatMap { before in cpuAfter.map { $0 - before } })
    }

    /// The redis-server whose working directory (its `--dir`) is `directory`.
    static func server(in directory: String) -> pid_t? {
        let wanted = URL(fileURLWithPath: directory).resolvingSymlinksInPath().path
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).first { pid in
            let comm = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? ""
            let cwd = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/cwd")) ?? ""
            return comm == "redis-server\n" && cwd == wanted
        }
    }
}
