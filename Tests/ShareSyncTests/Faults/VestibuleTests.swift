import Foundation
import Glibc
import ShareLog
import Testing
import TestSupport
@testable import ShareSync
import TestTraits

/// A full `Vestibule` makes room by dropping an arrival that has shown
/// nothing (no hello, or no finished TLS), not one in the middle of its
/// handshake: a flood that reconnects in bursts cannot cut off a good
/// client that is proving itself (found by the hostile-peers load test
/// over TCP). Only when every arrival has progressed does the oldest go.
@Suite(.hangDeadline) struct VestibuleTests {
    /// An arrival of a keyed server over a Unix socket pair, and the
    /// client's end.
    static func arrival(_ store: ShareStore, key: SyncKey) throws -> (Arrival, SocketChannel) {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw TransportError.system(operation: "socketpair", errno: errno)
        }
        let handshake = ServerHandshake(
            replica: store.replicaID, epoch: store.epoch, proofKey: key.derived(for: .handshakeProof),
            nonce: HandshakeNonce(bytes: SyncKey.randomNonce())!)
        let arrival = try Arrival(SocketChannel(adopting: ends[0], peer: "server end"), acceptedAt: .now, tls: nil, handshake: handshake)
        return (arrival, SocketChannel(adopting: ends[1], peer: "client end"))
    }

    /// The client says hello as a main; the arrival takes it and now waits
    /// for the proof.
    static func sayHello(_ arrival: Arrival, from client: SocketChannel, _ store: ShareStore, key: SyncKey, places: SessionPlaces) throws {
        let hello = ClientHandshake(
            role: .main, directions: .pull, replica: ReplicaID(uuid: UUID()), epoch: Epoch(uuid: UUID()), key: key, nonce: HandshakeNonce(bytes: SyncKey.randomNonce())!)
        try client.write(FrameEncoder.encode(hello.start.frame), deadline: .now + .seconds(10))
        try Deadline.block(until: "the arrival takes the hello", timeout: .seconds(10)) {
            guard case .waiting = arrival.advance(places: places, store: store, wakeSignal: { nil }) else {
                throw TransportError.system(operation: "the arrival ended its handshake", errno: 0)
            }
            return arrival.hasProgressed
        }
    }

    @Test func aFullVestibuleDropsAnArrivalThatShowedNothingBeforeOneMidHandshake() throws {
        let directory = TemporaryDirectory("vestibule")
        var options = ShareStore.Options()
        options.environment.durability = .noSync
        let store = try ShareStore.open(at: directory.appending("store"), creatingIfMissing: true, options: options)
        let key = SyncKey.generate()
        let places = SessionPlaces(mains: 4, clips: 4)
        var vestibule = Vestibule(capacity: 2, timeout: .seconds(60))

        // The oldest arrival is a good main that has said hello; the next
        // has said nothing.
        let (talker, talkerClient) = try Self.arrival(store, key: key)
        let (silent, silentClient) = try Self.arrival(store, key: key)
        defer { [talkerClient, silentClient].forEach { $0.close() } }
        #expect(vestibule.seat(talker) == nil)
        #expect(vestibule.seat(silent) == nil)
        try Self.sayHello(talker, from: talkerClient, store, key: key, places: places)
        #expect(!silent.hasProgressed)

        // A third comes: the silent one leaves, not the older talker.
        let (third, thirdClient) = try Self.arrival(store, key: key)
        defer { thirdClient.close() }
        #expect(vestibule.seat(third) === silent)
        #expect(vestibule.holds(talker) && vestibule.holds(third))

        // When all have progressed, the oldest leaves.
        try Self.sayHello(third, from: thirdClient, store, key: key, places: places)
        let (fourth, fourthClient) = try Self.arrival(store, key: key)
        defer { fourthClient.close() }
        #expect(vestibule.seat(fourth) === talker)
        vestibule.closeAll()
    }
}
