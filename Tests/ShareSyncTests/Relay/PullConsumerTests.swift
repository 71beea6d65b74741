import Foundation
import ShareSync
import Testing
import TestSupport
import TestTraits

/// A pull consumer whose durable consumer is deleted between two fetches,
/// against a real `nats-server`: the next long fetch must fail within its
/// wait, so that a relay makes its consumer again. Without the pull's idle
/// heartbeats libnats answered "no messages" at every expiry, forever, and
/// `StreamRelayTests`' deleted-consumer test hung whenever the deletion
/// fell between two fetches (a fresh clone's run on a loaded machine).
@Suite(.serialized, .hangDeadline) struct PullConsumerTests {
    @Test func aFetchFromAConsumerDeletedBetweenFetchesFailsWithinItsWait() throws {
        let fixture = try RelayFixture("pulldeleted")
        let connection = try JetStreamConnection(JetStreamConnection.Options(servers: fixture.cluster.clientURLs))
        var settings = StreamSettings()
        settings.replicas = 1
        _ = try connection.createStream(settings)
        let consumer = try connection.makePullConsumer(stream: settings.name, durable: "deleted", filter: settings.allSubjects, startSequence: 1)
        // Nothing to fetch: a live consumer answers "none" at the expiry.
        #expect(try consumer.fetch(count: 10, maxBytes: 1 << 20, timeout: .seconds(2)).isEmpty)
        try JetStreamConnection(JetStreamConnection.Options(servers: fixture.cluster.clientURLs))
            .deleteConsumer(stream: settings.name, durable: "deleted")
        var failure: JetStreamError?
        for _ in 0..<2 {
            do { _ = try consumer.fetch(count: 10, maxBytes: 1 << 20, timeout: .seconds(5)) } catch {
                failure = error
                break
            }
        }
        #expect(failure != nil, "a fetch from a deleted consumer fails instead of waiting for nothing")
    }
}
