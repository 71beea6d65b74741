import Foundation
import ShareLog
import ShareSync
import Synchronization
import TestSupport

/// Sync workload 3, clip fetches: a main server in another process
/// (`sharelog-bench serve`) holding `syncClipShares` shares of the 9:1 mix
/// answers `syncClipFetches` fetches by id from 1, 8 and 50 concurrent
/// clients. Each fetch is what `sharelog clip open` does: connect, the clip
/// handshake, one `fetch`, the `records`, the card committed to the clip's
/// own store, `bye`. Each client thread has its own clip store, opened
/// without fsync: the figure is the server's, and a real clip commits on
/// its own device, not on the server's disk. Figures: fetches/s, and each
/// fetch's latency, p50 and p99.
///
/// The anchor is Redis `GET` of the same cards, with as many client threads,
/// twice: on connections opened before the clock starts (as the issue
/// asks), and with a new connection per `GET`, which is what a clip, a new
/// process each time, would do.
public struct ClipFetchWorkload: Workload {
    public let name = "clip"

    public init() {}

    public func run(in context: BenchContext, recording measurements: inout Measurements) async throws {
        let configuration = context.configuration
        let deck = CardDeck(mixed: true, pool: configuration.cardPool)
        let bench = SyncBench(context: context)
        let mainPath = context.storePath("clip-main", .shareLog)
        let clipsPath = context.storePath("clip-clients", .shareLog)
        let redisPath = context.storePath("clip", .redis)
        let sockets = try SyncBench.socketDirectory()
        defer {
            for path in [mainPath, clipsPath, redisPath, sockets] { context.remove(path) }
        }
        let shares = configuration.syncClipShares
        context.progress("clip: filling the main store and Redis with \(Formatting.grouped(shares)) shares")
        let names = try bench.fillMain(at: mainPath, deck: deck, count: shares)
        let (redis, redisNames) = try await context.filledRedis(at: redisPath, deck: deck, parts: [.live(shares)])
        defer { redis.close() }
        let server = try bench.startServer(store: mainPath, socket: sockets + "/main.sock")
        defer { server.stop() }

        // The same cards for every system: picks are card indexes.
        var random = SeededGenerator(seed: 15)
        let picks = (0..<configuration.syncClipFetches).map { _ in Int.random(in: 0..<shares, using: &random) }
        let redisPicks = picks.flatMap { redisNames[16 * $0 ..< 16 * ($0 + 1)] }
        for round in 0..<configuration.syncRounds {
            for connections in configuration.syncClipConnections {
                context.remove(clipsPath)
                let clients = try ClipClients(count: connections, under: clipsPath)
                for step in Step.order(forRound: round) {
                    context.progress("clip: round \(round + 1), \(connections) connections, \(step)")
                    let timed: (seconds: Double, latencies: Latencies)
                    let system: BenchSystem
                    switch step {
                    case .shareLog:
                        timed = try clients.fetch(picks.map { names[$0] }, from: sockets + "/main.sock")
                        system = .shareLog
                    case .redis, .redisConnecting:
                        let fetched = try redis.fetchLatencies(redisPicks, threads: connections, connectionPerFetch: step == .redisConnecting)
                        guard fetched.tally.live == picks.count else {
                            throw BenchError.mismatch("Redis found \(fetched.tally.live) of \(picks.count) cards")
                        }
                        timed = (fetched.seconds, Latencies(fetched.latencies))
                        system = .redis
                    }
                    let id = "sync.clip.c\(connections)" + (step == .redisConnecting ? ".connecting" : "")
                    let title = step == .redisConnecting
                        ? "  Redis with a new connection per GET, as a clip's new process would"
                        : "clip fetches by id, \(connections) connection\(connections == 1 ? "" : "s")"
                    measurements.record(id, title: title, unit: "fetches/s", higherIsBetter: true,
                                        system: system, value: Double(picks.count) / timed.seconds)
                    if step == .redisConnecting { continue }
                    for (p, label) in [(0.5, "p50"), (0.99, "p99")] {
                        measurements.record(
                            "sync.clip.c\(connections).\(label)", title: "  latency of one fetch, \(label)", unit: "ms",
                            higherIsBetter: false, system: system, value: timed.latencies.milliseconds(p))
                    }
                }
            }
        }
        // The like-for-like row compares ShareLog's fetches with Redis's
        // connecting ones: copy ShareLog's rounds into it.
        for connections in configuration.syncClipConnections {
            for value in measurements.figure("sync.clip.c\(connections)")?.results[BenchSystem.shareLog.rawValue]?.values ?? [] {
                measurements.record("sync.clip.c\(connections).connecting", title: "", unit: "fetches/s", higherIsBetter: true,
                                    system: .shareLog, value: value)
            }
        }
    }

    private enum Step: CaseIterable, CustomStringConvertible {
        case shareLog, redis, redisConnecting

        static func order(forRound round: Int) -> [Step] {
            let shift = round % allCases.count
            return Array(allCases[shift...] + allCases[..<shift])
        }

        var description: String {
            switch self {
            case .shareLog: "ShareLog"
            case .redis: "Redis"
            case .redisConnecting: "Redis, a connection per GET"
            }
        }
    }
}

/// The clip processes of the clip workload, as threads: each with its own
/// clip store, fetching its share of the names one session at a time.
private final class ClipClients {
    private let stores: [ShareStore]

    init(count: Int, under directory: String) throws {
        var options = ShareStore.Options()
        options.clock = FixedClock(Timestamp(milliseconds: SyncBench.now))
        options.environment.durability = .noSync
        stores = try (0..<count).map { index in
            try ShareStore.open(at: (directory as NSString).appendingPathComponent("clip-\(index)"), creatingIfMissing: true, options: options)
        }
    }

    /// Fetches every name (thread k takes every k-th), one clip session each.
    ///
    /// - Throws: `BenchError.mismatch` when a fetch does not bring its share.
    func fetch(_ names: [RecordName], from socket: String) throws -> (seconds: Double, latencies: Latencies) {
        let latencies = Mutex(Latencies())
        let failure = Mutex<String?>(nil)
        let stores = stores
        let stopwatch = Stopwatch()
        try ThreadGang.run(stores.count) { thread in
            var mine = Latencies()
            for name in stride(from: thread, to: names.count, by: stores.count).map({ names[$0] }) {
                var request = SyncRequest(endpoint: .unix(path: socket))
                request.role = .clip
                request.names = [name]
                let started = Stopwatch()
                do {
                    let summary = try SyncClient.run(request, store: stores[thread])
                    guard summary.found == [name] else {
                        failure.withLock { $0 = "a clip fetch of \(name) found \(summary.found), unknown \(summary.unknown)" }
                        return
                    }
                } catch {
                    failure.withLock { $0 = "a clip fetch of \(name) failed: \(error)" }
                    return
                }
                mine.append(started.seconds)
            }
            latencies.withLock { $0.append(contentsOf: mine) }
        }
        let seconds = stopwatch.seconds
        if let failure = failure.withLock({ $0 }) { throw BenchError.mismatch(failure) }
        return (seconds, latencies.withLock { $0 })
    }
}
