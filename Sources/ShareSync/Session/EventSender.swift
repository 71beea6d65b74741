import ShareLog

/// The sending end of one direction of a session: it answers the peer's
/// pull with batches of this store's log, keeps at most `window` of them
/// unacknowledged, says when the peer has caught up, and in follow mode
/// sends new events as they commit (docs/SYNC.md "Pull", "Follow",
/// "Snapshot").
///
/// A plain value, like `EventReceiver`: the driver reads the log when asked
/// (`readLog`, `readSnapshot`) and reports the result back.
struct EventSender {
    enum Phase: Equatable, Sendable {
        /// No pull yet (or a snapshot ended and a new pull is due).
        case waitingForPull
        case streaming
        /// Caught up in follow mode: waiting for a commit.
        case following
        /// The cursor could not be served; a snapshot request is due.
        case refused
        /// Sending a snapshot of the log up to this position.
        case snapshot(upTo: UInt64?)
        /// Caught up without follow: this direction is complete.
        case done

        /// This phase, as a refusal names it.
        var sessionPhase: SessionPhase {
            switch self {
            case .waitingForPull: .awaitingPull
            case .streaming: .streaming
            case .following: .followingCommits
            case .refused: .cursorRefused
            case .snapshot: .sendingSnapshot
            case .done: .sendingDone
            }
        }
    }

    /// Batches sent and not yet acknowledged, at most: enough to keep the
    /// socket busy while the peer commits, few enough to bound memory.
    static let window = 2

    /// The peer, whose own events are not sent back to it.
    let peer: ReplicaID
    /// The largest batch this side sends, whatever the peer asks.
    let maxBatchBytes: Int
    private(set) var phase = Phase.waitingForPull
    private var epoch: Epoch?
    private var follow = false
    private var batchBytes = 0
    /// The log position the next read starts after.
    private var after: UInt64 = 0
    /// The highest position sent, and acknowledged.
    private(set) var sentThrough: UInt64 = 0
    private(set) var ackedThrough: UInt64 = 0
    /// The `through` of each batch sent and not acknowledged yet, oldest
    /// first: at most `window`. The peer acknowledges each batch once, in
    /// order, so an ack must name the oldest; a repeated or skipped one
    /// would open the window wider than two batches.
    private var awaitingAcks: [UInt64] = []
    private var reading = false
    private var caughtUpSent: UInt64?
    private(set) var eventsSent = 0
    private(set) var bytesSent = 0

    init(peer: ReplicaID, maxBatchBytes: Int) {
        self.peer = peer
        self.maxBatchBytes = maxBatchBytes
    }

    /// Whether `type` is a message this side of a direction receives.
    static func handles(_ type: FrameType) -> Bool {
        [.pull, .ack, .snapshotRequest].contains(type)
    }

    /// The actions a message of the types `handles` asks for.
    mutating func receive(_ message: Message) throws(SessionError) -> [SessionAction] {
        switch (message, phase) {
        case (.pull(let pull), .waitingForPull):
            // A position means nothing without the epoch it belongs to.
            guard pull.knownEpoch != nil || pull.after == 0 else { throw .unexpected(.pull, while: .pullWithoutEpoch(after: pull.after)) }
            epoch = pull.knownEpoch
            after = pull.after
            sentThrough = pull.after
            ackedThrough = pull.after
            follow = pull.follow
            batchBytes = max(1, min(Int(pull.maxBatchBytes), maxBatchBytes))
            phase = .streaming
            return nextRead()
        case (.ack(let through), _):
            guard through <= sentThrough else { throw .ackBeyondSent(acked: through, sent: sentThrough) }
            guard through == awaitingAcks.first else { throw .ackOutOfTurn(acked: through, awaiting: awaitingAcks.first) }
            awaitingAcks.removeFirst()
            ackedThrough = through
            return phase == .streaming ? nextRead() : []
        case (.snapshotRequest, .refused):
            phase = .snapshot(upTo: nil)
            reading = true
            return [.readSnapshot(after: 0, maxBytes: batchBytes)]
        default:
            throw .unexpected(message.type, while: phase.sessionPhase)
        }
    }

    /// What to do with a run of the log read for `readLog`.
    mutating func read(_ result: LogRead) -> [SessionAction] {
        reading = false
        switch result {
        case .snapshotRequired(let reason, let current):
            phase = .refused
            var horizon: UInt64 = 0
            if case .behindHorizon(_, let trimmed) = reason { horizon = trimmed }
            return [.send(.snapshotRequired(reason: Self.wire(reason), epoch: current, horizon: horizon))]
        case .batch(let batch):
            epoch = batch.epoch
            var actions: [SessionAction] = []
            if batch.through > after || !batch.events.isEmpty {
                actions.append(.send(.batch(through: batch.through, events: EncodedEvents(batch.events))))
                after = batch.through
                sentThrough = batch.through
                awaitingAcks.append(batch.through)
                eventsSent += batch.events.count
                bytesSent += batch.bytes
            }
            guard batch.through >= batch.lastPosition else { return actions + nextRead() }
            if caughtUpSent != batch.lastPosition {
                caughtUpSent = batch.lastPosition
                actions.append(.send(.caughtUp(position: batch.lastPosition)))
            }
            if follow {
                phase = .following
                actions.append(.awaitCommit(after: after))
            } else {
                phase = .done
                actions.append(.directionDone)
            }
            return actions
        }
    }

    /// What to do with a part of the snapshot read for `readSnapshot`.
    mutating func readSnapshot(_ batch: ReplicationBatch, epoch current: Epoch) -> [SessionAction] {
        reading = false
        guard case .snapshot(let fixed) = phase else { return [] }
        // The snapshot is the log up to its end when the snapshot began:
        // entries are never removed, so later reads see the same prefix.
        let upTo = fixed ?? batch.lastPosition
        var actions: [SessionAction] = []
        if !batch.events.isEmpty { actions.append(.send(.snapshotBatch(EncodedEvents(batch.events)))) }
        eventsSent += batch.events.count
        bytesSent += batch.bytes
        guard batch.through < upTo else {
            phase = .waitingForPull
            caughtUpSent = nil
            return actions + [.send(.snapshotEnd(resumeAfter: upTo, epoch: current))]
        }
        phase = .snapshot(upTo: upTo)
        reading = true
        return actions + [.readSnapshot(after: batch.through, maxBytes: batchBytes)]
    }

    /// The log moved past `position` (follow mode).
    mutating func committed(_ position: UInt64) -> [SessionAction] {
        guard phase == .following, position > after else { return [] }
        phase = .streaming
        return nextRead()
    }

    private mutating func nextRead() -> [SessionAction] {
        guard phase == .streaming, !reading, awaitingAcks.count < Self.window else { return [] }
        reading = true
        return [.readLog(after: after, epoch: epoch, maxBytes: batchBytes)]
    }

    private static func wire(_ reason: SnapshotReason) -> Message.SnapshotReason {
        switch reason {
        case .epochUnknown: .epochUnknown
        case .cursorAhead: .cursorAhead
        case .behindHorizon: .behindHorizon
        }
    }
}
