import ShareLog
@testable import ShareSync

/// The receiving end of a direction as docs/SYNC.md ("Pull", "Follow",
/// "Snapshot") and `EventReceiver`'s documentation describe it, written
/// apart from it for `SessionFuzzTarget`:
///
/// - the first pull carries the cursor the store holds (none: no epoch,
///   position 0), `follow`, this side's batch limit and `heldOfPeer`;
/// - a `batch` through a position not behind the cursor is applied with the
///   cursor set to (epoch, through), then acknowledged with that `through`;
///   one behind it is `cursorMovedBack`;
/// - `caughtUp` moves the cursor to the log's end when that is past it (or
///   on first contact, so the peer is known), and ends the direction
///   unless it follows;
/// - `snapshotRequired` is answered with `snapshotRequest`, once a session
///   (a second is `snapshotLoop`); the snapshot's parts are applied without
///   a cursor, and its end resets the cursor to (epoch, resumeAfter), even
///   behind, and pulls again from there;
/// - anything else, or any of these out of turn, is `unexpected`.
struct ReferenceReceiver {
    enum Phase: Equatable { case pulling, following, snapshot, done }

    let peerEpoch: Epoch
    let follow: Bool
    let maxBatchBytes: UInt32
    let heldOfPeer: UInt64
    private(set) var phase = Phase.pulling
    private var epoch: Epoch?
    private var position: UInt64
    private var snapshots = 0

    init(peerEpoch: Epoch, cursor: PeerCursor?, follow: Bool, maxBatchBytes: Int, heldOfPeer: UInt64) {
        self.peerEpoch = peerEpoch
        self.follow = follow
        self.maxBatchBytes = UInt32(clamping: maxBatchBytes)
        self.heldOfPeer = heldOfPeer
        epoch = cursor?.epoch
        position = cursor?.position ?? 0
    }

    /// Whether its pull has caught up (the client's held pull may go on).
    var caughtUp: Bool { phase == .following || phase == .done }

    func start() -> [SessionAction] { [.send(pull())] }

    mutating func receive(_ message: Message) -> ReferenceVerdict {
        let streaming = phase == .pulling || phase == .following
        switch message {
        case .batch(let through, let events) where streaming:
            guard through >= position else { return .refuse(.error(.cursorMovedBack(from: position, to: through))) }
            let mark = CursorMark(epoch: epoch ?? peerEpoch, position: through)
            (epoch, position) = (mark.epoch, through)
            return .accept([.apply(events, cursor: mark, then: .ack(through: through))])
        case .caughtUp(let end) where streaming:
            var actions: [SessionAction] = []
            if epoch == nil || end > position {
                let mark = CursorMark(epoch: epoch ?? peerEpoch, position: max(end, position))
                (epoch, position) = (mark.epoch, mark.position)
                actions.append(.apply(EncodedEvents(encoded: []), cursor: mark, then: nil))
            }
            phase = follow ? .following : .done
            return .accept(follow ? actions : actions + [.directionDone])
        case .snapshotRequired where streaming:
            guard snapshots == 0 else { return .refuse(.error(.snapshotLoop)) }
            snapshots = 1
            phase = .snapshot
            return .accept([.send(.snapshotRequest)])
        case .snapshotBatch(let events) where phase == .snapshot:
            return .accept([.apply(events, cursor: nil, then: nil)])
        case .snapshotEnd(let resumeAfter, let snapshotEpoch) where phase == .snapshot:
            (epoch, position, phase) = (snapshotEpoch, resumeAfter, .pulling)
            let mark = CursorMark(epoch: snapshotEpoch, position: resumeAfter, resets: true)
            return .accept([.apply(EncodedEvents(encoded: []), cursor: mark, then: nil), .send(pull())])
        default:
            return .refuse(.unexpected(message.type))
        }
    }

    private func pull() -> Message {
        .pull(Message.Pull(knownEpoch: epoch, after: position, follow: follow, maxBatchBytes: maxBatchBytes, heldOfYou: heldOfPeer))
    }
}
