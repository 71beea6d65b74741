import ShareLog
@testable import ShareSync

/// The sending end of a direction as docs/SYNC.md ("Pull", "Follow",
/// "Snapshot") and `EventSender`'s documentation describe it, written
/// apart from it for `SessionFuzzTarget`:
///
/// - a `pull` starts it (one with a position but no epoch is refused), and
///   only when it waits for one: at the start and after a snapshot's end;
/// - it reads the log after the cursor, in the cursor's epoch, at most
///   `min(pull's limit, its own)` bytes (at least 1: one event always
///   fits), one read at a time, and sends what each read holds as a
///   `batch` through the read's `through` (nothing when the read is empty
///   at the end); at most two batches go unacknowledged;
/// - an `ack` must name the oldest batch waiting for one (one past what was
///   sent is `ackBeyondSent`, any other `ackOutOfTurn`);
/// - a read that reaches the log's end sends `caughtUp(end)` (not twice for
///   one end), then waits for a commit past it (follow) or ends the
///   direction;
/// - a cursor the log cannot serve gets `snapshotRequired`, and nothing
///   else until `snapshotRequest`; the snapshot is the log from the start
///   to its end when the snapshot began, in parts, then
///   `snapshotEnd(that end, the store's epoch)`, and a new pull is due.
struct ReferenceSender {
    enum Phase: Equatable { case waitingForPull, streaming, following, refused, snapshot(upTo: UInt64?), done }

    let maxBatchBytes: Int
    private(set) var phase = Phase.waitingForPull
    private var epoch: Epoch?
    private var follow = false
    private var batchBytes = 1
    private var after: UInt64 = 0
    private var sentThrough: UInt64 = 0
    private(set) var unacknowledged: [UInt64] = []
    private var reading = false
    private var caughtUpAt: UInt64?
    /// Where it waits for the log to move (follow), as the machine's
    /// `awaitingCommitAfter` must say.
    private(set) var awaitingCommitAfter: UInt64?

    init(maxBatchBytes: Int) { self.maxBatchBytes = maxBatchBytes }

    /// Whether this direction is over: caught up without follow, every
    /// batch acknowledged.
    var isDone: Bool { phase == .done && unacknowledged.isEmpty }

    mutating func receive(pull: Message.Pull) -> ReferenceVerdict {
        guard phase == .waitingForPull, pull.knownEpoch != nil || pull.after == 0 else { return .refuse(.unexpected(.pull)) }
        (epoch, after, sentThrough, follow) = (pull.knownEpoch, pull.after, pull.after, pull.follow)
        batchBytes = max(1, min(Int(pull.maxBatchBytes), maxBatchBytes))
        phase = .streaming
        return .accept(nextRead())
    }

    mutating func receive(_ message: Message) -> ReferenceVerdict {
        switch message {
        case .ack(let through):
            guard through <= sentThrough else { return .refuse(.error(.ackBeyondSent(acked: through, sent: sentThrough))) }
            guard through == unacknowledged.first else { return .refuse(.error(.ackOutOfTurn(acked: through, awaiting: unacknowledged.first))) }
            unacknowledged.removeFirst()
            return .accept(phase == .streaming ? nextRead() : [])
        case .snapshotRequest where phase == .refused:
            phase = .snapshot(upTo: nil)
            reading = true
            return .accept([.readSnapshot(after: 0, maxBytes: batchBytes)])
        default:
            return .refuse(.unexpected(message.type))
        }
    }

    mutating func read(_ result: LogRead) -> [SessionAction] {
        reading = false
        switch result {
        case .snapshotRequired(let reason, let current):
            phase = .refused
            let (wire, horizon): (Message.SnapshotReason, UInt64) =
                switch reason {
                case .epochUnknown: (.epochUnknown, 0)
                case .cursorAhead: (.cursorAhead, 0)
                case .behindHorizon(_, let trimmed): (.behindHorizon, trimmed)
                }
            return [.send(.snapshotRequired(reason: wire, epoch: current, horizon: horizon))]
        case .batch(let batch):
            epoch = batch.epoch
            var actions: [SessionAction] = []
            if batch.through > after || !batch.events.isEmpty {
                actions.append(.send(.batch(through: batch.through, events: EncodedEvents(batch.events))))
                (after, sentThrough) = (batch.through, batch.through)
                unacknowledged.append(batch.through)
            }
            guard batch.through >= batch.lastPosition else { return actions + nextRead() }
            if caughtUpAt != batch.lastPosition {
                caughtUpAt = batch.lastPosition
                actions.append(.send(.caughtUp(position: batch.lastPosition)))
            }
            if follow {
                phase = .following
                awaitingCommitAfter = after
                return actions + [.awaitCommit(after: after)]
            }
            phase = .done
            return actions + [.directionDone]
        }
    }

    mutating func readSnapshot(_ part: ReplicationBatch) -> [SessionAction] {
        reading = false
        guard case .snapshot(let fixed) = phase else { return [] }
        let upTo = fixed ?? part.lastPosition
        let sent: [SessionAction] = part.events.isEmpty ? [] : [.send(.snapshotBatch(EncodedEvents(part.events)))]
        guard part.through < upTo else {
            phase = .waitingForPull
            caughtUpAt = nil
            return sent + [.send(.snapshotEnd(resumeAfter: upTo, epoch: part.epoch))]
        }
        phase = .snapshot(upTo: upTo)
        reading = true
        return sent + [.readSnapshot(after: part.through, maxBytes: batchBytes)]
    }

    /// The log now ends at `last`.
    mutating func committed(_ last: UInt64) -> [SessionAction] {
        guard let waiting = awaitingCommitAfter, last > waiting else { return [] }
        awaitingCommitAfter = nil
        guard phase == .following, last > after else { return [] }
        phase = .streaming
        return nextRead()
    }

    private mutating func nextRead() -> [SessionAction] {
        guard phase == .streaming, !reading, unacknowledged.count < 2 else { return [] }
        reading = true
        return [.readLog(after: after, epoch: epoch, maxBytes: batchBytes)]
    }
}
