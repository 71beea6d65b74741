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
/// The same is measured, in the same slices, for a commit made by another
/// process than the server, as an app that embeds the store commits beside
/// `sharelog serve`: this process creates on a second durable store that
/// `sharelog-bench serve` serves, and a second follower follows that
/// server, so each share reaches it through the store's commit signal
/// (docs/SYNC.md "The commit signal"). At the end, that follower and that
/// server are left idle for `followIdleSeconds`, and their CPU time is
/// recorded per minute.
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
        // The embedding app's store: made here, then served by another process.
        let embeddedPath = context.storePath("follow-embedded", .shareLog)
        let embeddedFollowerPath = context.storePath("follow-embedded-follower", .shareLog)
        defer {
            for path in [embeddedPath, embeddedFollowerPath] { context.remove(path) }
        }
        let embedded = try SyncBench.openReplica(at: embeddedPath)
        let embeddedServer = try bench.startServer(store: embeddedPath, socket: sockets + "/embedded.sock")
        defer { embeddedServer.stop() }
        let embeddedFollower = try bench.startFollower(store: embeddedFollowerPath, socket: sockets + "/embedded.sock")
        defer { embeddedFollower.stop() }
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
        var otherProcess = Latencies()
        var redisTimes = (commit: Latencies(), delay: Latencies())
        var roundTrips = Latencies()
        // The first share also waits for the follower's first session.
        _ = try followOne(card: deck.card(0), main: main, follower: follower, expected: 1, firstSession: true)
        _ = try followOne(card: deck.card(0), main: embedded, follower: embeddedFollower, expected: 1, firstSession: true)
        created = 1
        var embeddedCreated = 1
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
                case .otherProcess:
                    for _ in 0..<count {
                        let times = try followOne(
                            card: deck.card(embeddedCreated), main: embedded, follower: embeddedFollower, expected: embeddedCreated + 1)
                        embeddedCreated += 1
                        otherProcess.append(times.delay)
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
            record("sync.follow.otherProcess.\(id)", "follow latency, \(label): commit by another process than the server's",
                   [(.shareLog, otherProcess)])
        }
        let idleWindow = Duration.seconds(configuration.followIdleSeconds ?? 10)
        context.progress("follow: a follower and its server idle for \(idleWindow)")
        let idle = [(embeddedFollower, "follower"), (embeddedServer, "server")]
        let before = idle.map { ProcStatus.threadRunTimes(of: $0.0.pid) }
        try await Task.sleep(for: idleWindow)
        for ((peer, role), start) in zip(idle, before) {
            guard let start, let end = ProcStatus.threadRunTimes(of: peer.pid) else { continue }
            let perMinute = ProcStatus.runSeconds(from: start, to: end) * 1000 * 60 / Double(idleWindow.components.seconds)
            measurements.record(
                "sync.follow.idleCPU.\(role)", title: "idle \(role == "server" ? "serve" : "follower") CPU per minute, follow mode, nothing committed",
                unit: "ms", higherIsBetter: false, system: .shareLog, value: perMinute)
        }
    }

    /// The three measurements, taken in turn slice by slice.
    private enum Step: CaseIterable { case shareLog, otherProcess, redis, roundTrip }

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
