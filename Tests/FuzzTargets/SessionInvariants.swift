import ShareLog
@testable import ShareSync

/// The contracts `SessionFuzzTarget` checks on each answer of
/// `SessionMachine` on their own, from what caused it, before it compares
/// the answer with `ReferenceSession`'s (docs/SYNC.md "Sessions", "Pull",
/// "Snapshot", "Messages"; `SessionAction`):
///
/// - a message of a type that may not come (`ReferenceSession.mayCome`) is
///   refused with `unexpected` of its type; `heartbeat` yields nothing;
/// - events are applied only as a message brought them: a `batch`'s or a
///   `snapshotBatch`'s exactly, a `records`' in order, none for `caughtUp`
///   and `snapshotEnd`; only a batch is acknowledged, with its `through`,
///   after it is applied, and acks never go back (but after a snapshot's
///   end, from which the pull starts over); the cursor moves only to a
///   position the peer named, never back but for a snapshot's end (which
///   resets it, even behind); a clip applies without a cursor;
/// - only a side that sends events reads the log, waits for commits or
///   sends the sender's messages, each as a read gave it (a batch through
///   the read's `through` with its events, `caughtUp` at the log's end once
///   a read reached it, a snapshot's parts and its end); at most two
///   batches go unacknowledged;
/// - only a side that receives pulls (first, and after a snapshot's end,
///   from there) and asks for a snapshot (after `snapshotRequired`); only
///   a clip fetches (1–64 names, first, and after an answer); only a
///   clip's server answers fetches, with the names asked;
/// - a `pull` with `heldOfYou` not 0 gets the claim check and nothing
///   else; after it, nothing is sent for a claim of more than this side
///   made (the machine refuses it).
struct SessionInvariants {
    /// What the machine answered.
    enum Cause {
        case start
        case message(Message)
        case read(LogRead)
        case snapshot(ReplicationBatch)
        case claimChecked(madeHere: UInt64)
        case committed(UInt64)
    }

    let side: SessionMachine.Side
    let peer: EstablishedPeer
    private let receives: Bool
    private let sends: Bool
    private var lastAck: UInt64?
    private var cursor: UInt64
    private var batchesWaiting = 0
    /// The names of the last fetch the machine sent.
    private(set) var lastFetch: [RecordName] = []
    private(set) var eventsApplied = 0
    private(set) var batchesSent = 0
    private(set) var acksSent = 0

    init(side: SessionMachine.Side, peer: EstablishedPeer, cursor: PeerCursor?) {
        self.side = side
        self.peer = peer
        receives = ReferenceSession.receives(side, peer)
        sends = ReferenceSession.sends(side, peer)
        self.cursor = cursor?.position ?? 0
    }

    /// "server of a main session (pull+follow)".
    var session: String { "\(side) of a \(peer.role) session (\(Self.names(peer.directions)))" }

    /// "pull+push", "none".
    static func names(_ directions: SyncDirections) -> String {
        let named = [("pull", SyncDirections.pull), ("push", .push), ("follow", .follow)].filter { directions.contains($0.1) }.map(\.0)
        return named.isEmpty ? "none" : named.joined(separator: "+")
    }

    /// A refusal of `message` that the table says may not come.
    func checkRefusal(of message: Message, _ error: SessionError) throws(FuzzViolation) {
        guard !ReferenceSession.mayCome(message.type, to: side, of: peer) else { return }
        guard case .unexpected(message.type, _) = error else {
            throw FuzzViolation("a \(message.type) may not come to the \(session), and it was refused with \(error)")
        }
    }

    /// The machine took `message` with `actions`.
    mutating func check(_ actions: [SessionAction], taking message: Message) throws(FuzzViolation) {
        try FuzzViolation.check(
            ReferenceSession.mayCome(message.type, to: side, of: peer),
            "a \(message.type) may not come to the \(session), and the machine took it with \(actions)")
        if case .ack = message { batchesWaiting -= 1 }
        switch message {
        case .heartbeat: try FuzzViolation.check(actions.isEmpty, "a heartbeat yielded \(actions)")
        case .pull(let pull) where pull.heldOfYou != 0:
            try FuzzViolation.check(actions == [.checkClaim(peerHolds: pull.heldOfYou)], "a pull with heldOfYou \(pull.heldOfYou) yielded \(actions), not the claim check alone")
        case .fetch(let names):
            try FuzzViolation.check(actions == [.answerFetch(names)], "a fetch of \(names.count) names yielded \(actions)")
        default: break
        }
        try check(actions, after: .message(message))
    }

    /// The machine's answer to `cause`.
    mutating func check(_ actions: [SessionAction], after cause: Cause) throws(FuzzViolation) {
        for action in actions {
            switch action {
            case .send(let message): try checkSend(message, after: cause)
            case .apply(let events, let mark, let then): try checkApply(events, mark, then, after: cause)
            case .readLog(_, _, let maxBytes):
                try FuzzViolation.check(sends && maxBytes > 0, "the \(session) asked to read \(maxBytes) bytes of the log")
            case .readSnapshot(_, let maxBytes):
                try FuzzViolation.check(sends && maxBytes > 0, "the \(session) asked to read \(maxBytes) bytes of a snapshot")
            case .awaitCommit(let after):
                guard sends, case .read(.batch(let batch)) = cause, batch.through >= batch.lastPosition, after == batch.through else {
                    throw FuzzViolation("the \(side) waits for a commit after \(after) following \(cause)")
                }
            case .directionDone, .checkClaim, .answerFetch:
                break
            }
        }
        try FuzzViolation.check(batchesWaiting <= 2, "\(batchesWaiting) batches are waiting for their acks (at most two may)")
    }

    private mutating func checkSend(_ message: Message, after cause: Cause) throws(FuzzViolation) {
        let fine: Bool
        switch (message, cause) {
        case (.pull(let pull), .start): fine = receives && pull.after == cursor
        case (.pull(let pull), .message(.snapshotEnd(let after, let epoch))): fine = receives && pull.after == after && pull.knownEpoch == epoch
        case (.snapshotRequest, .message(.snapshotRequired)): fine = receives
        case (.fetch(let names), .start), (.fetch(let names), .message(.records)):
            fine = peer.role == .clip && side == .client && Message.fetchNames.contains(names.count)
            lastFetch = names
        case (.batch(let through, let events), .read(.batch(let read))):
            fine = sends && through == read.through && events == EncodedEvents(read.events)
            batchesWaiting += 1
            batchesSent += 1
        case (.caughtUp(let position), .read(.batch(let read))): fine = sends && read.through >= read.lastPosition && position == read.lastPosition
        case (.snapshotRequired(_, let epoch, _), .read(.snapshotRequired(_, let current))): fine = sends && epoch == current
        case (.snapshotBatch(let events), .snapshot(let part)): fine = sends && !events.encoded.isEmpty && events == EncodedEvents(part.events)
        case (.snapshotEnd(let after, let epoch), .snapshot(let part)): fine = sends && epoch == part.epoch && part.through >= after
        default: fine = false
        }
        try FuzzViolation.check(fine, "the \(session) sent \(message) after \(cause)")
    }

    private mutating func checkApply(_ events: EncodedEvents, _ mark: CursorMark?, _ then: Message?, after cause: Cause) throws(FuzzViolation) {
        let fine: Bool
        switch cause {
        case .message(.batch(let through, let sent)):
            fine = receives && events == sent && mark?.position == through && mark?.resets == false && then == .ack(through: through)
            try FuzzViolation.check(through >= lastAck ?? 0, "the \(side) acknowledged \(through) after \(lastAck ?? 0)")
            lastAck = through
            acksSent += 1
        case .message(.caughtUp(let end)):
            fine = receives && events.encoded.isEmpty && (mark?.position == end || mark?.position == cursor) && mark?.resets == false && then == nil
        case .message(.snapshotBatch(let sent)): fine = receives && events == sent && mark == nil && then == nil
        case .message(.snapshotEnd(let after, let epoch)):
            fine = receives && events.encoded.isEmpty && mark == CursorMark(epoch: epoch, position: after, resets: true) && then == nil
            // The pull after it starts over in the snapshot's log.
            lastAck = nil
        case .message(.records(let records)):
            fine = peer.role == .clip && side == .client && events.encoded == records.flatMap(\.events.encoded) && mark == nil && then == nil
        default: fine = false
        }
        try FuzzViolation.check(fine, "the \(session) applied \(events.count) events (cursor \(mark.map { "\($0)" } ?? "none"), then \(then.map { "\($0)" } ?? "nothing")) after \(cause)")
        if let mark {
            try FuzzViolation.check(mark.resets || mark.position >= cursor, "the cursor moved back from \(cursor) to \(mark.position) after \(cause)")
            cursor = mark.position
        }
        eventsApplied += events.count
    }
}
