import ShareLog
import Testing
@testable import ShareSync

/// The sending end of a direction, fed messages and log reads by hand
/// (docs/SYNC.md "Pull", "Follow", "Snapshot").
@Suite struct EventSenderTests {
    static let peer = ReplicaID("0000000a-0000-4000-8000-000000000002")!
    static let epoch = Epoch("0000000e-0000-4000-8000-000000000002")!
    static let origin = ReplicaID("0000000b-0000-4000-8000-000000000002")!

    static func event(_ counter: UInt64) -> Event {
        Event(id: EventID(origin: origin, counter: counter), kind: .shareExpired(ShareExpired(
            recordName: RecordName("0000000c-0000-4000-8000-000000000002")!, at: Timestamp(milliseconds: 0), reason: .revoked)))
    }

    static func batch(_ counters: ClosedRange<UInt64>, last: UInt64) -> ReplicationBatch {
        let events = counters.map(event)
        return ReplicationBatch(events: events, through: counters.upperBound, lastPosition: last, bytes: 60 * events.count, epoch: epoch)
    }

    static func pull(after: UInt64, epoch: Epoch?, follow: Bool = false, bytes: UInt32 = 1 << 20) -> Message {
        .pull(Message.Pull(knownEpoch: epoch, after: after, follow: follow, maxBatchBytes: bytes))
    }

    @Test func itStreamsBatchesWithAtMostAWindowUnacknowledged() throws {
        var sender = EventSender(peer: Self.peer, maxBatchBytes: 4096)
        // The peer asks for more than this side sends at once: the smaller wins.
        #expect(try sender.receive(Self.pull(after: 0, epoch: nil)) == [.readLog(after: 0, epoch: nil, maxBytes: 4096)])
        let first = Self.batch(1...2, last: 6)
        #expect(sender.read(.batch(first)) == [
            .send(.batch(through: 2, events: EncodedEvents(first.events))), .readLog(after: 2, epoch: Self.epoch, maxBytes: 4096),
        ])
        let second = Self.batch(3...4, last: 6)
        // Two batches out, none acknowledged: no third read until an ack.
        #expect(sender.read(.batch(second)) == [.send(.batch(through: 4, events: EncodedEvents(second.events)))])
        #expect(try sender.receive(.ack(through: 2)) == [.readLog(after: 4, epoch: Self.epoch, maxBytes: 4096)])
        let last = Self.batch(5...6, last: 6)
        #expect(sender.read(.batch(last)) == [
            .send(.batch(through: 6, events: EncodedEvents(last.events))), .send(.caughtUp(position: 6)), .directionDone,
        ])
        #expect(sender.eventsSent == 6)
        #expect(throws: SessionError.ackBeyondSent(acked: 7, sent: 6)) { try sender.receive(.ack(through: 7)) }
    }

    @Test func aRepeatedOrEarlyAckCannotWidenTheWindow() throws {
        var sender = EventSender(peer: Self.peer, maxBatchBytes: 4096)
        _ = try sender.receive(Self.pull(after: 0, epoch: nil))
        _ = sender.read(.batch(Self.batch(1...2, last: 8)))
        _ = sender.read(.batch(Self.batch(3...4, last: 8)))
        // Batches through 2 and 4 are out. The ack of 2 opens one read.
        #expect(try sender.receive(.ack(through: 2)) == [.readLog(after: 4, epoch: Self.epoch, maxBytes: 4096)])
        _ = sender.read(.batch(Self.batch(5...6, last: 8)))
        // The same ack again would let a third batch out unacknowledged.
        #expect(throws: SessionError.ackOutOfTurn(acked: 2, awaiting: 4)) { try sender.receive(.ack(through: 2)) }
        var skipping = EventSender(peer: Self.peer, maxBatchBytes: 4096)
        _ = try skipping.receive(Self.pull(after: 0, epoch: nil))
        _ = skipping.read(.batch(Self.batch(1...2, last: 8)))
        _ = skipping.read(.batch(Self.batch(3...4, last: 8)))
        // Acking the second batch first skips the first one's turn.
        #expect(throws: SessionError.ackOutOfTurn(acked: 4, awaiting: 2)) { try skipping.receive(.ack(through: 4)) }
    }

    @Test func followingItWaitsForACommitAndSendsWhatFollows() throws {
        var sender = EventSender(peer: Self.peer, maxBatchBytes: 4096)
        _ = try sender.receive(Self.pull(after: 2, epoch: Self.epoch, follow: true))
        let empty = ReplicationBatch(events: [], through: 2, lastPosition: 2, bytes: 0, epoch: Self.epoch)
        #expect(sender.read(.batch(empty)) == [.send(.caughtUp(position: 2)), .awaitCommit(after: 2)])
        #expect(sender.committed(2) == [])
        #expect(sender.committed(3) == [.readLog(after: 2, epoch: Self.epoch, maxBytes: 4096)])
        let next = Self.batch(3...3, last: 3)
        #expect(sender.read(.batch(next)) == [
            .send(.batch(through: 3, events: EncodedEvents(next.events))), .send(.caughtUp(position: 3)), .awaitCommit(after: 3),
        ])
    }

    @Test func anUnservableCursorGetsASnapshotOfTheLogAsItWasWhenItBegan() throws {
        var sender = EventSender(peer: Self.peer, maxBatchBytes: 4096)
        let stale = Epoch("0000000e-0000-4000-8000-0000000000ff")!
        _ = try sender.receive(Self.pull(after: 9, epoch: stale))
        #expect(sender.read(.snapshotRequired(.epochUnknown(cursor: stale, current: Self.epoch), current: Self.epoch)) == [
            .send(.snapshotRequired(reason: .epochUnknown, epoch: Self.epoch, horizon: 0)),
        ])
        #expect(try sender.receive(.snapshotRequest) == [.readSnapshot(after: 0, maxBytes: 4096)])
        let part = Self.batch(1...2, last: 4)
        #expect(sender.readSnapshot(part, epoch: Self.epoch) == [.send(.snapshotBatch(EncodedEvents(part.events))), .readSnapshot(after: 2, maxBytes: 4096)])
        // The log grew to 5 meanwhile; the snapshot still ends where it began, at 4.
        let rest = Self.batch(3...5, last: 5)
        #expect(sender.readSnapshot(rest, epoch: Self.epoch) == [
            .send(.snapshotBatch(EncodedEvents(rest.events))), .send(.snapshotEnd(resumeAfter: 4, epoch: Self.epoch)),
        ])
        #expect(try sender.receive(Self.pull(after: 4, epoch: Self.epoch)) == [.readLog(after: 4, epoch: Self.epoch, maxBytes: 4096)])
    }

    @Test func itRefusesWhatTheProtocolDoesNotAllow() throws {
        var sender = EventSender(peer: Self.peer, maxBatchBytes: 4096)
        #expect(throws: SessionError.unexpected(.pull, while: .pullWithoutEpoch(after: 5))) {
            try sender.receive(Self.pull(after: 5, epoch: nil))
        }
        #expect(throws: SessionError.unexpected(.snapshotRequest, while: .awaitingPull)) { try sender.receive(.snapshotRequest) }
        _ = try sender.receive(Self.pull(after: 0, epoch: nil))
        #expect(throws: SessionError.unexpected(.pull, while: .streaming)) { try sender.receive(Self.pull(after: 0, epoch: nil)) }
    }
}
