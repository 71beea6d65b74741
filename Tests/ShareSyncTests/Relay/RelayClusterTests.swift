import Foundation
import Glibc
import ShareLog
import ShareSync
import TestSupport
import Testing

/// ShareLog replicas relaying through a real three-server JetStream
/// cluster, the stream replicated three times: they converge while they
/// write at once, lose and double nothing when a server or a relay
/// crashes, let a late replica catch up, and send a replica that the
/// stream can no longer serve down the snapshot path instead of leaving a
/// gap. The expected shares are the ones this test made; the stream's
/// message counts are the servers' own (`StreamObserver`).
///
/// Each test starts its own cluster in a temporary folder and stops it;
/// the suite runs serialized, in the process phase of `Scripts/test`.
@Suite(.serialized, .timeLimit(.minutes(10))) struct RelayClusterTests {
    /// Every replica holds `expected` exactly, every server the stream's
    /// `expected.count` messages (one per creation), and each store
    /// passes `verify` once its relay stopped.
    static func expectConverged(
        _ replicas: [RelayReplica], relays: [RelayProcess], on fixture: RelayFixture, _ expected: [RecordName: [UInt8]]
    ) throws {
        do {
            for replica in replicas { try replica.waitUntilHolds(expected) }
            try fixture.observer.waitUntilEveryServerHolds(expected.count)
        } catch {
            let logs = zip(replicas, relays).map { "\($0.label)'s relay: \($1.lines.suffix(20).joined(separator: "\n"))" }
            throw HarnessFailure.unexpected("\(error)\n\(logs.joined(separator: "\n"))")
        }
        for relay in relays { #expect(try relay.stop().status == 0) }
        for replica in replicas { #expect(try replica.cli.verify() == 0, "verify \(replica.label)") }
    }

    @Test func threeReplicasWritingAtOnceConvergeAndTheStreamHoldsNoCardInTheClear() throws {
        let fixture = try RelayFixture("relay", servers: 3)
        let replicas = try ["a", "b", "c"].map(fixture.replica)
        let relays = try replicas.map { try $0.startRelay(fixture.cluster) }

        let started = ContinuousClock.now
        var expected = try ConcurrentWriters.run(replicas) { try $0.create(300) }
        for replica in replicas { try replica.waitUntilHolds(expected) }
        let elapsed = ContinuousClock.now - started
        print("relay: \(expected.count) events from 3 replicas reached all 3 in \(elapsed): "
            + "\(Int(Double(expected.count) * 1000 / Double(max(elapsed.milliseconds, 1)))) events/s through the relay")

        // Commit on a to commit on b, one share at a time.
        var delays: [Duration] = []
        for index in 0..<20 {
            let made = try replicas[0].create(1, from: 1000 + index)
            let committed = ContinuousClock.now
            try Deadline.block(until: "b holds a's probe \(index)", timeout: .seconds(30), every: .microseconds(200)) {
                if case .live = try replicas[1].store.fetch(made.keys.first!, at: RelayReplica.now) { return true }
                return false
            }
            delays.append(ContinuousClock.now - committed)
            expected.merge(made) { first, _ in first }
        }
        delays.sort()
        print("relay: commit on a to commit on b: median \(delays[delays.count / 2]), slowest \(delays.last!) (20 probes)")

        let totals = relays.map { try? $0.stop() }
        try Self.expectConverged(replicas, relays: relays, on: fixture, expected)
        // Each relay published its own creations once, and nothing else.
        let published = totals.map { ($0?.json["counts"] as? [String: Any])?["published"] as? Int }
        #expect(published == [320, 300, 300])

        // No card in the clear in any server's files: each card's ORG line is its replica's.
        for label in ["a", "b", "c"] {
            #expect(try fixture.observer.filesContaining(Array("ORG:\(label) Works".utf8)) == [], "cards of \(label)")
        }
    }

    @Test func aStreamLeaderKilledDuringReplicationAndRestartedLosesAndDoublesNothing() throws {
        let fixture = try RelayFixture("relay", servers: 3)
        let replicas = try ["a", "b", "c"].map(fixture.replica)
        let relays = try replicas.map { try $0.startRelay(fixture.cluster) }

        var expected = try ConcurrentWriters.run(replicas) { try $0.create(150, from: 0) }
        let leader = try #require(fixture.observer.leader(), "the stream has a leader")
        fixture.cluster.kill(leader)
        expected.merge(try ConcurrentWriters.run(replicas) { try $0.create(150, from: 150) }) { first, _ in first }
        try fixture.cluster.restart(leader)
        expected.merge(try ConcurrentWriters.run(replicas) { try $0.create(150, from: 300) }) { first, _ in first }

        #expect(expected.count == 1350)
        try Self.expectConverged(replicas, relays: relays, on: fixture, expected)
    }

    @Test func aRelayKilledInTheMiddleOfItsWorkRestartsAndLosesAndDoublesNothing() throws {
        let fixture = try RelayFixture("relay", servers: 3)
        let replicas = try ["a", "b", "c"].map(fixture.replica)
        var relays = try replicas.map { try $0.startRelay(fixture.cluster) }

        var expected: [RecordName: [UInt8]] = [:]
        // Three crashes of a's relay, each a different time after a burst
        // of writes on every replica: it dies while publishing a's events
        // and applying the others'.
        for (round, pause) in [0, 15, 60].enumerated() {
            expected.merge(try ConcurrentWriters.run(replicas) { try $0.create(200, from: round * 200, perTransaction: 50) }) { first, _ in first }
            Thread.sleep(forTimeInterval: Double(pause) / 1000)
            try relays[0].kill()
            relays[0] = try replicas[0].startRelay(fixture.cluster)
        }

        #expect(expected.count == 1800)
        try Self.expectConverged(replicas, relays: relays, on: fixture, expected)
    }

    @Test func aFreshReplicaJoiningLateCatchesUpFromTheStream() throws {
        let fixture = try RelayFixture("relay", servers: 3)
        let early = try ["a", "b"].map(fixture.replica)
        var relays = try early.map { try $0.startRelay(fixture.cluster) }
        var expected = try ConcurrentWriters.run(early) { try $0.create(200) }
        for replica in early { try replica.waitUntilHolds(expected) }

        let late = try fixture.replica("late")
        relays.append(try late.startRelay(fixture.cluster))
        try late.waitUntilHolds(expected)
        // And what it makes reaches the others.
        expected.merge(try late.create(50)) { first, _ in first }
        try Self.expectConverged(early + [late], relays: relays, on: fixture, expected)
    }

    @Test func aReplicaTheStreamCanNoLongerServeTakesTheSnapshotPathNeverAGap() throws {
        let fixture = try RelayFixture("relay", servers: 3)
        let main = try fixture.replica("main")
        let away = try fixture.replica("away")
        let mainRelay = try main.startRelay(fixture.cluster)
        var awayRelay = try away.startRelay(fixture.cluster)
        var expected = try ConcurrentWriters.run([main, away]) { try $0.create(100) }
        try away.waitUntilHolds(expected)
        try main.waitUntilHolds(expected)
        #expect(try awayRelay.stop().status == 0)
        let held = expected

        // While `away` is off, main writes; the stream then loses those
        // messages, as MaxAge would drop them, and main writes more.
        expected.merge(try main.create(100, from: 100)) { first, _ in first }
        try fixture.observer.waitUntilEveryServerHolds(300)
        let connection = try JetStreamConnection(JetStreamConnection.Options(servers: fixture.cluster.clientURLs))
        try connection.purgeStream(named: "SHARELOG")
        expected.merge(try main.create(50, from: 200)) { first, _ in first }
        try fixture.observer.waitUntilEveryServerHolds(50)

        // Without a peer to pull from it stops (exit 6) and writes nothing.
        let refused = try away.cli.run(arguments: ["relay", "--nats", fixture.cluster.serverURLList, "--stream-key", away.streamKey])
        #expect(refused.status == 6)
        #expect(refused.error.contains("snapshot required: this replica applied the stream through sequence 200"), "\(refused.error)")
        #expect(try away.differences(from: held) == [])

        // With one, it pulls what the stream lost from main, then reads the stream on.
        let server = try ServeProcess(main.cli, socket: fixture.directory.appending("main.sock"))
        awayRelay = try away.startRelay(fixture.cluster, extra: ["--snapshot-from", server.endpoint])
        try away.waitUntilHolds(expected)
        #expect(try awayRelay.stop().status == 0)
        #expect(try mainRelay.stop().status == 0)
        try server.stop()
        #expect(try away.cli.verify() == 0)
        #expect(try main.cli.verify() == 0)
    }
}
