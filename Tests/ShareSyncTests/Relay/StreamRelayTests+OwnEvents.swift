import Foundation
import SampleCards
import ShareLog
@testable import ShareSync
import TestSupport
import Testing

extension StreamRelayTests {
    /// An event of the replica's own id that it never made, in the stream
    /// (a wrong publisher, or this store restored together with its
    /// high-water file): the relay stops on it with the store's
    /// `ownOriginConflict`, as `RelayFailure.store`,
    /// applies nothing of it, and the replica keeps its id. Before, it took
    /// a new replica id on the stream's word.
    @Test func anEventOfItsOwnIDThatTheReplicaNeverMadeStopsTheRelayAndRenewsNothing() throws {
        let fixture = try RelayFixture("relayown")
        let a = try fixture.replica("a")
        let replica = a.store.replicaID, epoch = a.store.epoch
        let relay = try InProcessRelay(a, cluster: fixture.cluster, heartbeat: Self.heartbeat)

        let name = RecordName.random()
        let forged = Event(id: EventID(origin: replica, counter: 99), kind: .shareCreated(ShareCreated(
            recordName: name, vCard: SampleCard.make(index: 1), createdAt: RelayReplica.now,
            expiresAt: RelayReplica.now.advanced(by: .seconds(3600)))))
        let codec = RelayCodec(prefix: "shares", keyring: try StreamKeyring(path: a.streamKey, now: RelayReplica.now))
        let publisher = try JetStreamConnection(JetStreamConnection.Options(servers: fixture.cluster.clientURLs))
        _ = try publisher.publish([codec.message(for: forged, cardIsLive: true)], timeout: .seconds(10))

        let ended = try relay.ending(timeout: .seconds(60))
        guard case .failure(.store(.ownOriginConflict(let id, let made))) = ended else {
            Issue.record("the relay ended \(ended), not with .store(.ownOriginConflict)")
            return
        }
        #expect(id == forged.id && made == 0)
        #expect(a.store.replicaID == replica && a.store.epoch == epoch)
        #expect(try a.store.fetch(name) == .notFound)
    }
}
