import Foundation
import ShareLog
@testable import ShareSync
import TestSupport
import Testing
import TestTraits

/// A relay run in this process on a replica's own store, against one real
/// `nats-server`: it publishes a commit when the store announces it, not
/// at its heartbeat (an hour here); it keeps its durable consumer across
/// restarts and makes it again only when an operator deleted it; and it
/// ends its catch-up at the stream's last sequence, without waiting for
/// an empty fetch. The stream's message counts are the server's own
/// (`StreamObserver`).
@Suite(.serialized, .hangDeadline) struct StreamRelayTests {
    /// Longer than any test: whatever goes out, went out on a commit's announcement.
    static let heartbeat = Duration.seconds(3600)

    @Test func eachCommitGoesOutWhenTheStoreAnnouncesItNotAtTheHeartbeat() throws {
        let fixture = try RelayFixture("relaywake")
        let a = try fixture.replica("a")
        let relay = try InProcessRelay(a, cluster: fixture.cluster, heartbeat: Self.heartbeat)
        // The first may meet the publisher's first look at the log; each
        // later one finds it asleep until the next announcement.
        for index in 0..<3 {
            _ = try a.create(1, from: index)
            try fixture.observer.waitUntilEveryServerHolds(index + 1, timeout: .seconds(60))
        }
        try relay.stop()
        #expect(relay.relay.statistics.current.published == 3)
    }

    @Test func aRestartedRelayKeepsItsConsumerAndCatchesUpToTheStreamsEnd() throws {
        let fixture = try RelayFixture("relaykeep")
        let a = try fixture.replica("a")
        let b = try fixture.replica("b")
        var relayA = try InProcessRelay(a, cluster: fixture.cluster, heartbeat: Self.heartbeat)
        let relayB = try InProcessRelay(b, cluster: fixture.cluster, heartbeat: Self.heartbeat)
        var expected = try b.create(5)
        try a.waitUntilHolds(expected, timeout: .seconds(60))
        try relayA.stop()
        #expect(relayA.relay.statistics.current.consumersMade == 1)

        // While a's relay is away, b publishes more: the restarted relay
        // holds them all once it says it caught up, through the consumer
        // it had.
        expected.merge(try b.create(5, from: 5)) { first, _ in first }
        try fixture.observer.waitUntilEveryServerHolds(10)
        relayA = try InProcessRelay(a, cluster: fixture.cluster, heartbeat: Self.heartbeat)
        #expect(try a.differences(from: expected) == [])
        try relayA.stop()
        #expect(relayA.relay.statistics.current.consumersMade == 0)
        #expect(relayA.relay.statistics.current.applied == 5)

        // Already at the stream's end, it fetches nothing to catch up (a
        // fetch that finds nothing waits out its whole wait, 500 ms before)
        // and makes no consumer (0.4 to 0.6 s on a replicated stream).
        relayA = try InProcessRelay(a, cluster: fixture.cluster, heartbeat: Self.heartbeat)
        try relayA.stop()
        #expect(relayA.relay.statistics.current.catchUpFetches == 0)
        #expect(relayA.relay.statistics.current.consumersMade == 0)
        try relayB.stop()
    }

    @Test func aConsumerAnOperatorDeletedIsMadeAgainAndNothingIsLost() throws {
        let fixture = try RelayFixture("relaydeleted")
        let a = try fixture.replica("a")
        let b = try fixture.replica("b")
        let relayA = try InProcessRelay(a, cluster: fixture.cluster, heartbeat: Self.heartbeat)
        let relayB = try InProcessRelay(b, cluster: fixture.cluster, heartbeat: Self.heartbeat)
        var expected = try b.create(5)
        try a.waitUntilHolds(expected, timeout: .seconds(60))

        let operatorConnection = try JetStreamConnection(JetStreamConnection.Options(servers: fixture.cluster.clientURLs))
        let durable = "sharelog-\(RelaySubjects.token(of: a.store.replicaID.uuid))"
        try operatorConnection.deleteConsumer(stream: "SHARELOG", durable: durable)
        #expect(try operatorConnection.consumerInfo(stream: "SHARELOG", durable: durable) == nil)

        expected.merge(try b.create(5, from: 5)) { first, _ in first }
        try a.waitUntilHolds(expected, timeout: .seconds(60))
        #expect(try operatorConnection.consumerInfo(stream: "SHARELOG", durable: durable) != nil)
        try relayA.stop()
        try relayB.stop()
        #expect(relayA.relay.statistics.current.consumersMade == 2)
    }
}
