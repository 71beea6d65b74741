import ShareLog
import Testing
@testable import ShareSync

/// The receiving end of a direction, fed messages by hand: what it sends,
/// what it has applied, and what it refuses (docs/SYNC.md "Pull").
@Suite struct EventReceiverTests {
    static let peer = ReplicaID("0000000a-0000-4000-8000-000000000001")!
    static let peerEpoch = Epoch("0000000e-0000-4000-8000-000000000001")!
    static let events = EncodedEvents(encoded: [[1, 2, 3], [4, 5]])

    static func receiver(cursor: PeerCursor? = nil, follow: Bool = false) -> EventReceiver {
        EventReceiver(peer: peer, peerEpoch: peerEpoch, cursor: cursor, follow: follow, maxBatchBytes: 65536)
    }

    @Test func itPullsFromItsCursorAndAcknowledgesEachBatchOnlyAfterApplyingIt() throws {
        let stored = PeerCursor(peer: Self.peer, epoch: Self.peerEpoch, position: 40, lastSeen: Timestamp(milliseconds: 0))
        var receiver = Self.receiver(cursor: stored)
        #expect(receiver.start() == [.send(.pull(Message.Pull(knownEpoch: Self.peerEpoch, after: 40, follow: false, maxBatchBytes: 65536)))])
        // The ack rides on the apply: the driver sends it once the transaction has committed.
        #expect(try receiver.receive(.batch(through: 52, events: Self.events)) == [
            .apply(Self.events, cursor: CursorMark(epoch: Self.peerEpoch, position: 52), then: .ack(through: 52)),
        ])
        #expect(try receiver.receive(.caughtUp(position: 52)) == [.directionDone])
        #expect(receiver.eventsReceived == 2 && receiver.bytesReceived == 5)
    }

    @Test func withoutACursorItAsksFromTheStartAndTakesThePeersEpoch() throws {
        var receiver = Self.receiver()
        #expect(receiver.start() == [.send(.pull(Message.Pull(knownEpoch: nil, after: 0, follow: false, maxBatchBytes: 65536)))])
        #expect(try receiver.receive(.batch(through: 3, events: Self.events)) == [
            .apply(Self.events, cursor: CursorMark(epoch: Self.peerEpoch, position: 3), then: .ack(through: 3)),
        ])
    }

    @Test func aLogEndPastTheLastBatchMovesTheCursorToIt() throws {
        var receiver = Self.receiver(cursor: PeerCursor(peer: Self.peer, epoch: Self.peerEpoch, position: 40, lastSeen: Timestamp(milliseconds: 0)))
        _ = receiver.start()
        #expect(try receiver.receive(.caughtUp(position: 45)) == [
            .apply(EncodedEvents(encoded: []), cursor: CursorMark(epoch: Self.peerEpoch, position: 45), then: nil), .directionDone,
        ])
        #expect(receiver.position == 45)
    }

    @Test func followingItStaysOpenAfterCatchingUp() throws {
        var receiver = Self.receiver(follow: true)
        _ = receiver.start()
        // A first contact with nothing to send still records the peer.
        #expect(try receiver.receive(.caughtUp(position: 0)) == [
            .apply(EncodedEvents(encoded: []), cursor: CursorMark(epoch: Self.peerEpoch, position: 0), then: nil),
        ])
        #expect(try receiver.receive(.caughtUp(position: 0)) == [])
        #expect(receiver.phase == .following)
        #expect(try receiver.receive(.batch(through: 1, events: Self.events)).count == 1)
    }

    @Test func aSnapshotIsAskedForOnceThenPullingResumesFromItsEnd() throws {
        let stale = PeerCursor(peer: Self.peer, epoch: Epoch("0000000e-0000-4000-8000-0000000000ff")!, position: 9, lastSeen: Timestamp(milliseconds: 0))
        var receiver = Self.receiver(cursor: stale)
        _ = receiver.start()
        #expect(try receiver.receive(.snapshotRequired(reason: .epochUnknown, epoch: Self.peerEpoch, horizon: 0)) == [.send(.snapshotRequest)])
        #expect(try receiver.receive(.snapshotBatch(Self.events)) == [.apply(Self.events, cursor: nil, then: nil)])
        #expect(try receiver.receive(.snapshotEnd(resumeAfter: 70, epoch: Self.peerEpoch)) == [
            .apply(EncodedEvents(encoded: []), cursor: CursorMark(epoch: Self.peerEpoch, position: 70, resets: true), then: nil),
            .send(.pull(Message.Pull(knownEpoch: Self.peerEpoch, after: 70, follow: false, maxBatchBytes: 65536))),
        ])
        // A second demand in the same session would loop: the session ends instead.
        #expect(throws: SessionError.snapshotLoop) {
            try receiver.receive(.snapshotRequired(reason: .epochUnknown, epoch: Self.peerEpoch, horizon: 0))
        }
    }

    @Test func itRefusesWhatTheProtocolDoesNotAllow() throws {
        var receiver = Self.receiver(cursor: PeerCursor(peer: Self.peer, epoch: Self.peerEpoch, position: 10, lastSeen: Timestamp(milliseconds: 0)))
        #expect(throws: SessionError.unexpected(.batch, while: .startingPull)) { try receiver.receive(.batch(through: 11, events: Self.events)) }
        _ = receiver.start()
        #expect(throws: SessionError.cursorMovedBack(from: 10, to: 9)) { try receiver.receive(.batch(through: 9, events: Self.events)) }
        #expect(throws: SessionError.unexpected(.snapshotBatch, while: .pulling)) { try receiver.receive(.snapshotBatch(Self.events)) }
        #expect(throws: SessionError.unexpected(.snapshotEnd, while: .pulling)) {
            try receiver.receive(.snapshotEnd(resumeAfter: 1, epoch: Self.peerEpoch))
        }
    }
}
