import Foundation
import ShareLog
import ShareSync
import TestSupport

/// The relay's delay, next to direct follow: `syncFollowShares` shares
/// created one at a time, each waited for on the receiving replica before
/// the next; for each, the time from the return of its durable create to
/// the receiver's durable commit of it, both read on `CLOCK_MONOTONIC`.
///
/// - *relay*: replica A is a durable store this process creates on, with
///   its relay in another process (which learns of A's commits from the
///   store's commit signal, or at its 5-second heartbeat when the store
///   does not announce another process's commits, as `sharelog relay`
///   beside an app does); replica B is an empty store
///   with its own relay. B's relay stamps each commit; A's stamps when
///   the stream acknowledged the share (read every millisecond), which
///   splits the delay into publishing and delivery.
/// - *direct*: what the follow workload measures: a main store served by
///   an `InProcessServer`, and `sharelog-bench follow`;
/// - *NATS alone*: the floor under the relay's delay (`NatsDelayFloor`):
///   a message of a relay message's size published by this process to a
///   stream of its own, timed to its delivery to a waiting consumer.
///
/// The work is cut into slices and the three take turns, rotated. Before
/// each create, both ways pause for a random time below `pause` (5 ms),
/// not timed: a share made at once after the last one arrived would find
/// every thread on the way in the same phase (the publisher just gone back
/// to sleep after the last acknowledgement), and the delay would measure
/// that phase instead of an app's creates, which come at any moment.
extension RelayWorkload {
    /// The longest untimed pause before each create.
    private static let pause = Duration.milliseconds(5)

    /// The three ways, taking turns slice by slice.
    private enum Path: CaseIterable { case relay, direct, natsAlone }

    /// - Parameter messageBytes: the size of the floor's messages: a relay
    ///   message's, as the throughput rounds found it.
    func measureDelay(_ relay: RelayBench, messageBytes: Int, _ context: BenchContext, _ measurements: inout Measurements) throws {
        let configuration = context.configuration
        let deck = CardDeck(mixed: false, pool: configuration.cardPool)
        let bench = SyncBench(context: context)
        let aPath = context.storePath("relay-a", .shareLog)
        let bPath = context.storePath("relay-b", .shareLog)
        let mainPath = context.storePath("relay-follow-main", .shareLog)
        let followerPath = context.storePath("relay-follow-follower", .shareLog)
        let sockets = try SyncBench.socketDirectory()
        defer {
            for path in [aPath, bPath, RelayBench.keyPath(of: aPath), RelayBench.keyPath(of: bPath), mainPath, followerPath, sockets] {
                context.remove(path)
            }
        }
        let stream = "BENCH-DELAY"
        context.progress("relay delay: starting the relays of replicas A and B on stream \(stream), and a follower")
        try relay.copyKey(to: aPath)
        try relay.copyKey(to: bPath)
        let a = try SyncBench.openReplica(at: aPath)
        let relayA = try relay.startRelay(store: aPath, stream: stream, what: "replica A's relay")
        defer { relayA.stop() }
        _ = try relayA.nextStamp("caught-up", skipping: ["started"], within: Self.stepDeadline)
        let relayB = try relay.startRelay(store: bPath, stream: stream, what: "replica B's relay")
        defer { relayB.stop() }
        _ = try relayB.nextStamp("caught-up", skipping: ["started"], within: Self.stepDeadline)
        let main = try SyncBench.openReplica(at: mainPath)
        let server = try InProcessServer(store: main, socket: sockets + "/main.sock")
        defer { server.stop() }
        let follower = try bench.startFollower(store: followerPath, socket: sockets + "/main.sock")
        defer { follower.stop() }
        let floor = try NatsDelayFloor(servers: relay.servers, stream: "BENCH-FLOOR", timeout: Self.stepDeadline)
        defer { floor.stop() }
        let floorBody = [UInt8](repeating: 0x5A, count: messageBytes)

        let shares = configuration.syncFollowShares
        let slices = configuration.slices
        var viaRelay = (delay: Latencies(), published: Latencies())
        var direct = Latencies()
        var natsAlone = (delivered: Latencies(), acknowledged: Latencies())
        var madeOnA: [(name: RecordName, card: [UInt8])] = []
        var madeOnMain = 0
        var random = SeededGenerator(seed: 16)
        let pauseNanoseconds = Self.nanoseconds(Self.pause)
        // The first share of each also waits for the first delivery or session.
        for path in Path.allCases {
            switch path {
            case .relay: _ = try relayOne(card: deck.card(0), a: a, relayA: relayA, relayB: relayB, made: &madeOnA, first: true)
            case .direct: _ = try followOne(card: deck.card(0), main: main, follower: follower, expected: 1, first: true)
            case .natsAlone: _ = try floor.roundTrip(body: floorBody, timeout: .seconds(60))
            }
        }
        madeOnMain = 1
        for slice in 0..<slices {
            let count = shares * (slice + 1) / slices - shares * slice / slices
            context.progress("relay delay: slice \(slice + 1) of \(slices)")
            let shift = slice % Path.allCases.count
            for path in Path.allCases[shift...] + Path.allCases[..<shift] {
                for _ in 0..<count {
                    Thread.sleep(forTimeInterval: Double(UInt64.random(in: 0..<pauseNanoseconds, using: &random)) * 1e-9)
                    switch path {
                    case .relay:
                        let times = try relayOne(card: deck.card(madeOnA.count), a: a, relayA: relayA, relayB: relayB, made: &madeOnA)
                        viaRelay.delay.append(times.delay)
                        viaRelay.published.append(times.published)
                    case .direct:
                        direct.append(try followOne(card: deck.card(madeOnMain), main: main, follower: follower, expected: madeOnMain + 1))
                        madeOnMain += 1
                    case .natsAlone:
                        let times = try floor.roundTrip(body: floorBody, timeout: .seconds(30))
                        natsAlone.delivered.append(times.delivered)
                        natsAlone.acknowledged.append(times.acknowledged)
                    }
                }
            }
        }
        // Both relays idle: nothing is committed on A or B any more, and
        // the floor's consumer is gone.
        floor.stop()
        let idleSeconds = configuration.followIdleSeconds ?? 10
        context.progress("relay delay: both relays idle for \(idleSeconds) s")
        let relays = [relayA, relayB]
        // The peers' threads that wait for `published` stamps and watch for
        // an orphaned peer are the benchmark's, not the relay's: left out.
        let instrument: Set = [SyncPeer.publishedWatchThread, SyncPeer.orphanWatchThread]
        let before = relays.map { ProcStatus.threadRunTimes(of: $0.pid, excluding: instrument) }
        Thread.sleep(forTimeInterval: Double(idleSeconds))
        let idle = zip(relays, before).compactMap { peer, start -> Double? in
            guard let start, let end = ProcStatus.threadRunTimes(of: peer.pid, excluding: instrument) else { return nil }
            return ProcStatus.runSeconds(from: start, to: end) * 1000 * 60 / Double(idleSeconds)
        }
        if let most = idle.max() {
            measurements.record(
                "sync.relay.idleCPU", title: "idle relay CPU per minute, the busier of the two, nothing committed",
                unit: "ms", higherIsBetter: false, system: .shareLog, value: most)
        }
        relayB.stop()
        let held = try RelayBench.held(madeOnA, in: bPath)
        for (p, id, label) in [(0.5, "p50", "median"), (0.99, "p99", "99th percentile")] {
            let relayed = viaRelay.delay.milliseconds(p), followed = direct.milliseconds(p)
            measurements.record(
                "sync.relay.delay.\(id)", title: "relay delay, \(label): commit on A to commit on B through JetStream",
                unit: "ms", higherIsBetter: false, system: .shareLog, value: relayed)
            measurements.record(
                "sync.relay.delay.published.\(id)", title: "  of which: commit on A to the stream's acknowledgement, \(label)",
                unit: "ms", higherIsBetter: false, system: .shareLog, value: viaRelay.published.milliseconds(p))
            measurements.record(
                "sync.relay.delay.direct.\(id)", title: "  anchor: direct follow (sync --follow), \(label)",
                unit: "ms", higherIsBetter: false, system: .shareLog, value: followed)
            measurements.record(
                "sync.relay.delay.vsDirect.\(id)", title: "  relay / direct follow, \(label)", unit: "x",
                higherIsBetter: false, comparable: false, system: .shareLog, value: relayed / followed)
            let floored = natsAlone.delivered.milliseconds(p)
            measurements.record(
                "sync.relay.delay.natsAlone.\(id)",
                title: "  floor: NATS alone, publish to a waiting consumer's delivery, \(messageBytes) B, \(label)",
                unit: "ms", higherIsBetter: false, comparable: false, system: .shareLog, value: floored)
            measurements.record(
                "sync.relay.delay.natsAlone.acknowledged.\(id)", title: "    of which: publish to the stream's acknowledgement, \(label)",
                unit: "ms", higherIsBetter: false, comparable: false, system: .shareLog, value: natsAlone.acknowledged.milliseconds(p))
            measurements.record(
                "sync.relay.delay.natsAlone.vsDirect.\(id)", title: "  NATS alone / direct follow, \(label)", unit: "x",
                higherIsBetter: false, comparable: false, system: .shareLog, value: floored / followed)
        }
        measurements.record(
            "sync.relay.delay.held", title: "  shares replica B holds live with their card, of \(Formatting.grouped(madeOnA.count))",
            unit: "shares", higherIsBetter: true, comparable: false, system: .shareLog, value: Double(held))
    }

    /// Creates one share on A and reads B's commit of it and A's
    /// acknowledgement from the stream.
    ///
    /// - Returns: the delays from the create's return to B's commit and to
    ///   the acknowledgement, in seconds.
    private func relayOne(
        card: [UInt8], a: ShareStore, relayA: PeerProcess, relayB: PeerProcess, made: inout [(name: RecordName, card: [UInt8])],
        first: Bool = false
    ) throws -> (delay: Double, published: Double) {
        let share = try a.create(vCard: card, ttl: .seconds(7 * 24 * 3600))
        let committed = SyncPeer.monotonicNanoseconds()
        made.append((share.recordName, card))
        let timeout = Duration.seconds(first ? 60 : 30)
        let applied = try relayB.nextReport("applied", within: timeout)
        guard applied.count == 2, applied[0] == made.count else {
            throw BenchError.mismatch("replica B's relay reports applied \(applied), expected \(made.count) shares")
        }
        // A's own log grows with each create: its relay's commit feed says
        // so, after it committed its stream cursor.
        let published = try relayA.nextReport("published", skipping: ["applied"], within: timeout)
        guard published.count == 2, published[0] == made.count else {
            throw BenchError.mismatch("replica A's relay reports published \(published), expected \(made.count) shares")
        }
        // A stamp before the create's return was only faster than this
        // thread's return: zero, as in the follow workload.
        return (Self.seconds(after: committed, applied[1]), Self.seconds(after: committed, published[1]))
    }

    /// Creates one share on `main` and reads the follower's line for it.
    ///
    /// - Returns: the delay from the create's return to the follower's commit, in seconds.
    private func followOne(card: [UInt8], main: ShareStore, follower: PeerProcess, expected: Int, first: Bool = false) throws -> Double {
        _ = try main.create(vCard: card, ttl: .seconds(7 * 24 * 3600))
        let committed = SyncPeer.monotonicNanoseconds()
        let applied = try follower.nextReport("applied", within: .seconds(first ? 60 : 30))
        guard applied.count == 2, applied[0] == expected else {
            throw BenchError.mismatch("the follower reports applied \(applied), expected \(expected) shares")
        }
        return Self.seconds(after: committed, applied[1])
    }

    /// `duration` in whole nanoseconds.
    private static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        return UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }

    /// Seconds from `start` to `stamp`, both `CLOCK_MONOTONIC` nanoseconds; 0 when `stamp` comes first.
    private static func seconds(after start: UInt64, _ stamp: UInt64) -> Double {
        Double(stamp > start ? stamp - start : 0) * 1e-9
    }
}
