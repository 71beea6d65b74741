import Foundation
import ShareLog
@testable import ShareSync
import TestSupport
import Testing

extension StreamRelayTests {
    /// A stream of the relay's name whose subjects do not cover the
    /// relay's: the relay stops at setup with `unsuitableStream`, before it
    /// applies or publishes anything, instead of retrying.
    @Test func aStreamThatDoesNotCoverTheRelaysSubjectsStopsItAtSetup() throws {
        let fixture = try RelayFixture("relayunfit")
        let a = try fixture.replica("a")
        _ = try a.create(1)
        let connection = try JetStreamConnection(JetStreamConnection.Options(servers: fixture.cluster.clientURLs))
        _ = try connection.createStream(StreamSettings(subjectPrefix: "other", replicas: 1))

        let failure = #expect(throws: RelayFailure.self) {
            _ = try InProcessRelay(a, cluster: fixture.cluster, heartbeat: Self.heartbeat)
        }
        guard case .unsuitableStream = failure else {
            Issue.record("the relay ended with \(String(describing: failure)), not unsuitableStream")
            return
        }
        #expect(try connection.streamInfo(named: "SHARELOG")?.lastSequence == 0)
    }

    /// A stream JetStream will not create (three copies on one server): the
    /// relay stops at setup with `.stream`, JetStream's error kept as its
    /// cause, instead of retrying it as it retries a cluster error once it
    /// runs.
    @Test func aStreamJetStreamRefusesToCreateStopsTheRelayWithItsError() throws {
        let fixture = try RelayFixture("relaysetup")
        let a = try fixture.replica("a")
        let connection = try JetStreamConnection(JetStreamConnection.Options(servers: fixture.cluster.clientURLs))
        var options = StreamRelay.Options()
        options.stream.replicas = 3
        options.clock = FixedClock(RelayReplica.now)
        let relay = StreamRelay(
            store: a.store, connection: connection, keyring: try StreamKeyring(path: a.streamKey, now: RelayReplica.now), options: options)
        do {
            try relay.run(context: SessionContext())
            Issue.record("the relay ran")
        } catch {
            guard case .stream(let cause) = error else {
                Issue.record("the relay ended with \(error), not .stream")
                return
            }
            #expect(cause.operation.contains("create stream SHARELOG"), "\(cause)")
            #expect(cause.code != 0, "\(cause)")
        }
        #expect(relay.statistics.current.retries == 0)
    }
}
