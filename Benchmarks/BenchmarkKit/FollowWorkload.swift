import Foundation
import ShareLog

/// Sync workload 2, follow latency: `syncFollowShares` shares created on
/// main one at a time, each waited for on the follower before the next.
/// For each, the time from the return of its durable create on main to the
/// follower's durable commit of it, both read on `CLOCK_MONOTONIC`, which
/// every process of the machine shares.
///
/// Main is this process: a durable store served by an `InProcessServer`
/// (a commit wakes its session at once). The follower is `sharelog-bench
/// follow` in another process, which stamps each commit.
///
/// Anchors, in slices taken in turn with the order rotated: the durable
/// create alone (its own time, from the same loop), a round trip of 64
/// bytes between two processes over a Unix socket, and Redis's replication
/// delay with `appendfsync always` on master and replica: from the reply
/// to a master's `SET` until a `GET` on the replica sees the key.
public struct FollowWorkload: Workload {
    public let name = "follow"

    public init() {}

    public func run(in context: BenchContext, recording measurements: inout Measurements) async throws {
        let configuration = context.configuration
        let deck = CardDeck(mixed: false, pool: configuration.cardPool)
        let bench = SyncBench(context: context)
        let mainPath = context.storePath("follow-main", .shareLog)
        let followerPath = context.storePath("follow-follower", .shareLog)
        let redisPath = context.storePath("follow", .redis)
        let sockets = try SyncBench.socketDirectory()
        defer {
            for path in [mainPath, followerPath, redisPath, sockets] { context.remove(path) }
        }
        let main = try SyncBench.openReplica(at: mainPath)
        let server = try InProcessServer(store: main, socket: sockets + "/main.sock")
        defer { server.stop() }
        let follower = try bench.startFollower(store: followerPath, socket: sockets + "/main.sock")
        defer { follower.stop() }
        context.progress("follow: starting a Redis master and replica")
        try FileManager.default.createDirectory(atPath: redisPath, withIntermediateDirectories: true)
        let redis = try RedisReplicaPair(
            masterPath: (redisPath as NSString).appendingPathComponent("master"),
            replicaPath: (redisPath as NSString).appendingPathComponent("replica"))
        defer { redis.close() }
        try redis.master.makeDurable()
        _ = try redis.fullSync(expectedKeys: 0, deadline: .seconds(60))

        let shares = configuration.syncFollowShares
        let slices = configuration.slices
        var created = 0
        var redisSent = 0
        var shareLog = (commit: Latencies(), delay: Latencies())
        var redisTimes = (commit: Latencies(), delay: Latencies())
        var roundTrips = Latencies()
        // The first share also waits for the follower's first session.
        _ = try followOne(card: deck.card(0), main: main, follower: follower, expected: 1, firstSession: true)
        created = 1
        for slice in 0..<slices {
            let count = shares * (slice + 1) / slices - shares * slice / slices
            context.progress("follow: slice \(slice + 1) of \(slices)")
            let shift = slice % Step.allCases.count
            for step in Step.allCases[shift...] + Step.allCases[..<shift] {
                switch step {
                case .shareLog:
                    for _ in 0..<count {
                        let times = try followOne(card: deck.card(created), main: main, follower: follower, expected: created + 1)
                        created += 1
                        shareLog.commit.append(times.commit)
                        shareLog.delay.append(times.delay)
                    }
                case .redis:
                    for times in try redis.replicationDelays(deck, first: redisSent, count: count, deadline: .seconds(30)).delays {
                        redisTimes.commit.append(times.commitSeconds)
                        redisTimes.delay.append(times.delaySeconds)
                    }
                    redisSent += count
                case .roundTrip:
                    for seconds in try SocketAnchor.roundTrips(count) { roundTrips.append(seconds) }
                }
            }
        }
        for (p, id, label) in [(0.5, "p50", "median"), (0.99, "p99", "99th percentile")] {
            func record(_ figure: String, _ title: String, _ values: [(BenchSystem, Latencies)]) {
                for (system, latencies) in values {
                    measurements.record(
                        figure, title: title, unit: "ms", higherIsBetter: false, system: system, value: latencies.milliseconds(p))
                }
            }
            record("sync.follow.\(id)", "follow latency, \(label): commit on main to commit on the follower",
                   [(.shareLog, shareLog.delay), (.redis, redisTimes.delay)])
            record("sync.follow.commit.\(id)", "  anchor: the durable commit on main alone, \(label)",
                   [(.shareLog, shareLog.commit), (.redis, redisTimes.commit)])
            record("sync.follow.roundTrip.\(id)", "  anchor: a round trip over a Unix socket, \(label)", [(.shareLog, roundTrips)])
        }
    }

    /// The three measurements, taken in turn slice by slice.
    private enum Step: CaseIterable { case shareLog, redis, roundTrip }

    /// Creates one share on `main` and reads the follower's line for it.
    ///
    /// - Returns: the create's own time and the delay from its return to
    ///   the follower's commit, in seconds.
    private func followOne(
        card: [UInt8], main: ShareStore, follower: PeerProcess, expected: Int, firstSession: Bool = false
    ) throws -> (commit: Double, delay: Double) {
        let started = SyncPeer.monotonicNanoseconds()
        _ = try main.create(vCard: card, ttl: .seconds(7 * 24 * 3600))
        let committed = SyncPeer.monotonicNanoseconds()
        let line = try follower.nextLine(within: .seconds(firstSession ? 60 : 30))
        let fields = line.split(separator: " ")
        guard fields.count == 3, fields[0] == "applied", let total = Int(fields[1]), let stamp = UInt64(fields[2]) else {
            throw BenchError.process("the follower printed '\(line)'")
        }
        guard total == expected else { throw BenchError.mismatch("the follower applied \(total) shares, expected \(expected)") }
        // Main's commit is durable before `create` returns and before its
        // stamp: a follower whose stamp comes first was only faster than
        // this thread's return, and its delay counts as zero.
        return (Double(committed - started) * 1e-9, Double(stamp > committed ? stamp - committed : 0) * 1e-9)
    }
}
