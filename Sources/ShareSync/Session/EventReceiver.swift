import ShareLog

/// The receiving end of one direction of a session: it pulls the peer's
/// events after its cursor, has each batch applied with the cursor's
/// advance in one transaction, and acknowledges only after that commit
/// (docs/SYNC.md "Pull").
///
/// A plain value: `start()` and `receive(_:)` return the actions the
/// driver carries out (`SessionAction`). The cursor it keeps is the one
/// the store commits; after a crash the next session reads it back from
/// the store, so nothing acknowledged is asked for again and nothing
/// unapplied is skipped.
struct EventReceiver {
    enum Phase: Equatable, Sendable {
        case starting
        /// A pull is out; batches come.
        case pulling
        /// Caught up, staying open for new events (follow mode).
        case following
        /// The peer asked for a snapshot of its store at this epoch.
        case snapshot(Epoch)
        case done

        /// This phase, as a refusal names it.
        var sessionPhase: SessionPhase {
            switch self {
            case .starting: .startingPull
            case .pulling: .pulling
            case .following: .followingPeer
            case .snapshot: .receivingSnapshot
            case .done: .receivingDone
            }
        }
    }

    /// The peer's replica id and its store's epoch, from the handshake.
    let peer: ReplicaID
    let peerEpoch: Epoch
    let follow: Bool
    let maxBatchBytes: UInt32
    /// The highest counter of the peer's own origin this store held when
    /// the session began, sent with each pull (the peer's claim check).
    let heldOfPeer: UInt64
    private(set) var phase = Phase.starting
    /// The cursor: the epoch it belongs to (nil before anything was
    /// applied from this peer) and the position in the peer's log.
    private(set) var epoch: Epoch?
    private(set) var position: UInt64
    /// Events and bytes received, for the session's summary.
    private(set) var eventsReceived = 0
    private(set) var bytesReceived = 0
    /// Snapshots taken in this session: 0 or 1.
    private(set) var snapshotsTaken = 0

    /// - Parameter cursor: the cursor the store holds for `peer`, if any.
    init(peer: ReplicaID, peerEpoch: Epoch, cursor: PeerCursor?, follow: Bool, maxBatchBytes: UInt32, heldOfPeer: UInt64 = 0) {
        self.peer = peer
        self.heldOfPeer = heldOfPeer
        self.peerEpoch = peerEpoch
        self.follow = follow
        self.maxBatchBytes = maxBatchBytes
        epoch = cursor?.epoch
        position = cursor?.position ?? 0
    }

    /// The first pull.
    mutating func start() -> [SessionAction] {
        phase = .pulling
        return [.send(pull())]
    }

    /// Whether `type` is a message this side of a direction receives.
    static func handles(_ type: FrameType) -> Bool {
        [.batch, .caughtUp, .snapshotRequired, .snapshotBatch, .snapshotEnd].contains(type)
    }

    /// The actions a message of the types `handles` asks for.
    ///
    /// - Throws: `SessionError` when the message is not allowed now, or
    ///   would move the cursor back.
    mutating func receive(_ message: Message) throws(SessionError) -> [SessionAction] {
        switch (message, phase) {
        case (.batch(let through, let events), .pulling), (.batch(let through, let events), .following):
            guard through >= position else { throw .cursorMovedBack(from: position, to: through) }
            position = through
            let mark = CursorMark(epoch: epoch ?? peerEpoch, position: through)
            epoch = mark.epoch
            count(events)
            return [.apply(events, cursor: mark, then: .ack(through: through))]
        case (.caughtUp(let end), .pulling), (.caughtUp(let end), .following):
            // Every batch before it is applied. A first contact, or a log
            // end past the cursor (the sender skipped events this side
            // holds), still moves the cursor: `peers` then knows the peer,
            // and the next pull starts from its end.
            var actions: [SessionAction] = []
            if epoch == nil || end > position {
                let mark = CursorMark(epoch: epoch ?? peerEpoch, position: max(end, position))
                epoch = mark.epoch
                position = mark.position
                actions.append(.apply(EncodedEvents(encoded: []), cursor: mark, then: nil))
            }
            guard !follow else {
                phase = .following
                return actions
            }
            phase = .done
            return actions + [.directionDone]
        case (.snapshotRequired(_, let snapshotEpoch, _), .pulling), (.snapshotRequired(_, let snapshotEpoch, _), .following):
            guard snapshotsTaken == 0 else { throw .snapshotLoop }
            snapshotsTaken = 1
            phase = .snapshot(snapshotEpoch)
            return [.send(.snapshotRequest)]
        case (.snapshotBatch(let events), .snapshot):
            count(events)
            return [.apply(events, cursor: nil, then: nil)]
        case (.snapshotEnd(let resumeAfter, let snapshotEpoch), .snapshot):
            epoch = snapshotEpoch
            position = resumeAfter
            phase = .pulling
            return [.apply(EncodedEvents(encoded: []), cursor: CursorMark(epoch: snapshotEpoch, position: resumeAfter, resets: true), then: nil), .send(pull())]
        default:
            throw .unexpected(message.type, while: phase.sessionPhase)
        }
    }

    private func pull() -> Message {
        .pull(Message.Pull(knownEpoch: epoch, after: position, follow: follow, maxBatchBytes: maxBatchBytes, heldOfYou: heldOfPeer))
    }

    private mutating func count(_ events: EncodedEvents) {
        eventsReceived += events.count
        bytesReceived += events.encoded.reduce(0) { $0 + $1.count }
    }
}
