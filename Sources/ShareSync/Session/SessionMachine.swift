import ShareLog

/// The rules of an established session, on either side (docs/SYNC.md
/// "Sessions"): which message may come when, how the directions' machines
/// (`EventReceiver`, `EventSender`, `ClipFetcher`) share one stream, and
/// when the session is over.
///
/// A value that performs no I/O: messages, the results of reads and the
/// log's moves go in, `SessionAction`s come out, and `SessionRunner`
/// carries them out against the store and the channel. Each directions'
/// machine is there only when the session runs that direction, so a
/// message for a direction the session does not run is refused by an
/// exhaustive switch, never ignored.
struct SessionMachine {
    /// Which end of the connection this side is.
    enum Side: Equatable, Sendable {
        case client, server
    }

    let side: Side
    let peer: EstablishedPeer
    private(set) var receiver: EventReceiver?
    private(set) var sender: EventSender?
    private(set) var fetcher: ClipFetcher?
    /// Whether this side answers a clip's fetches.
    let answersFetches: Bool
    /// The server's pull, held by a client that also pulls until its own
    /// pull has caught up (see `receive(pull:)`).
    private var heldPull: Message.Pull?
    /// A pull whose `heldOfYou` the driver is checking (`.checkClaim`).
    private var pullBeingChecked: Message.Pull?
    /// Where the sender waits for the log to move (follow mode); nil when
    /// it does not wait.
    private(set) var awaitingCommitAfter: UInt64?
    /// The session ended in good order: the peer said `bye` (or, to a
    /// server, that it stops).
    private(set) var ended = false

    /// A session's machine. `receiving` is this store's cursor on the peer
    /// and the highest counter of the peer's origin it holds, read by the
    /// driver when this side receives events (a main that pulls, or a
    /// server that is pushed to); `fetching`, the names a clip asks for.
    init(
        side: Side, peer: EstablishedPeer, maxBatchBytes: Int, receiving: (cursor: PeerCursor?, heldOfPeer: UInt64)?,
        fetching names: [RecordName] = []
    ) {
        self.side = side
        self.peer = peer
        let sends = side == .client ? peer.directions.contains(.push) : peer.directions.contains(.pull)
        if peer.role == .main, let receiving {
            receiver = EventReceiver(
                peer: peer.replica, peerEpoch: peer.epoch, cursor: receiving.cursor, follow: peer.directions.contains(.follow),
                maxBatchBytes: UInt32(clamping: maxBatchBytes), heldOfPeer: receiving.heldOfPeer)
        }
        if peer.role == .main, sends { sender = EventSender(peer: peer.replica, maxBatchBytes: maxBatchBytes) }
        if peer.role == .clip, side == .client { fetcher = ClipFetcher(names: names) }
        answersFetches = peer.role == .clip && side == .server
    }

    /// Whether this side receives events in this session (the driver reads
    /// `receiving` for it).
    static func receives(_ side: Side, _ peer: EstablishedPeer) -> Bool {
        peer.role == .main && (side == .client ? peer.directions.contains(.pull) : peer.directions.contains(.push))
    }

    /// The first actions: the pull of a receiving side, a clip's first fetch.
    mutating func start() -> [SessionAction] {
        var actions: [SessionAction] = []
        if var machine = receiver {
            actions += machine.start()
            receiver = machine
        }
        if var machine = fetcher {
            actions += machine.start()
            fetcher = machine
        }
        return actions
    }

    /// Whether the session is over: `ended`, or, for a client, every
    /// direction done and every batch it sent acknowledged.
    var isComplete: Bool {
        if ended { return true }
        guard side == .client else { return false }
        let received = receiver.map { $0.phase == .done } ?? true
        let sent = sender.map { $0.phase == .done && $0.ackedThrough == $0.sentThrough } ?? true
        let fetched = fetcher?.isDone ?? true
        return received && sent && fetched
    }

    /// Takes the peer's next message.
    ///
    /// - Throws: `SessionError` for a message not allowed now, and for the
    ///   peer's own `error`.
    mutating func receive(_ message: Message) throws(SessionError) -> [SessionAction] {
        switch message {
        case .heartbeat:
            return []
        // Only a client says `bye`, once its directions are done: from a
        // server, before then, it would end a clip's fetch "well" with no
        // answer (the exchange fuzz target found it).
        case .bye:
            guard side == .server else { throw .unexpected(.bye, while: .clientDirectionsOpen) }
            ended = true
            return []
        // A client stopping ends the server's side in good order; a server
        // stopping before the client is done is a failure.
        case .error(.shuttingDown, _) where side == .server:
            ended = true
            return []
        case .error(let code, let text):
            throw .peerError(code, text)
        case .batch, .caughtUp, .snapshotRequired, .snapshotBatch, .snapshotEnd:
            guard var machine = receiver else { throw .unexpected(message.type, while: .notReceiving) }
            var actions = try machine.receive(message)
            receiver = machine
            if let pull = heldPull, [.following, .done].contains(machine.phase) {
                heldPull = nil
                actions += try receive(pull: pull)
            }
            return actions
        case .pull(let pull):
            guard sender != nil else { throw .unexpected(.pull, while: .notSending) }
            guard pull.heldOfYou == 0 else {
                pullBeingChecked = pull
                return [.checkClaim(peerHolds: pull.heldOfYou)]
            }
            return try receive(pull: pull)
        case .ack, .snapshotRequest:
            guard sender != nil else { throw .unexpected(message.type, while: .notSending) }
            return try withSender { sender throws(SessionError) in try sender.receive(message) }
        case .fetch(let names):
            guard answersFetches else { throw .unexpected(.fetch, while: .mainSession) }
            return [.answerFetch(names)]
        case .records(let records):
            guard var machine = fetcher else { throw .unexpected(.records, while: .notFetching) }
            let actions = try machine.receive(records)
            fetcher = machine
            return actions
        case .hello, .welcome, .authenticate, .accepted:
            throw .unexpected(message.type, while: .established)
        }
    }

    /// What the driver found for `.checkClaim`: how many events this
    /// store, `replica`, made under its id. A pull claiming more is refused
    /// (`UnmadeEventsClaim`) before anything is sent; any other goes on.
    mutating func claimChecked(madeHere made: UInt64, by replica: ReplicaID) throws(SessionError) -> [SessionAction] {
        guard let pull = pullBeingChecked else { preconditionFailure("claimChecked(madeHere:by:) with no pull being checked") }
        pullBeingChecked = nil
        if let claim = UnmadeEventsClaim(replica: replica, held: pull.heldOfYou, made: made) { throw .claimsUnmadeEvents(claim) }
        return try receive(pull: pull)
    }

    /// What to do with a run of the log read for `.readLog`.
    mutating func read(_ result: LogRead) -> [SessionAction] {
        withSender { $0.read(result) }
    }

    /// What to do with a part of a snapshot read for `.readSnapshot`.
    mutating func readSnapshot(_ batch: ReplicationBatch) -> [SessionAction] {
        withSender { $0.readSnapshot(batch, epoch: batch.epoch) }
    }

    /// This store's log now ends at `last` (follow mode): what the sender
    /// does, if it waits for the log to pass where it stands.
    mutating func committed(_ last: UInt64) -> [SessionAction] {
        guard let after = awaitingCommitAfter, last > after else { return [] }
        awaitingCommitAfter = nil
        return withSender { $0.committed(last) }
    }

    /// A pull past the claim check.
    private mutating func receive(pull: Message.Pull) throws(SessionError) -> [SessionAction] {
        // Both ways at once, each side could be writing a batch while the
        // other is too, neither reading: a deadlock once the socket buffers
        // fill (a send blocks until the peer reads). So a client that
        // pulls and pushes answers the server's pull once its own has
        // caught up; in between it only writes acks, which the server reads.
        // A second pull while one is held is out of turn, as it is to a
        // sender that already streams (the session fuzz target found it
        // replacing the first).
        if side == .client, let machine = receiver, ![.following, .done].contains(machine.phase) {
            guard heldPull == nil else { throw .unexpected(.pull, while: .pullHeld) }
            heldPull = pull
            return []
        }
        return try withSender { sender throws(SessionError) in try sender.receive(.pull(pull)) }
    }

    /// Runs `body` on the sender and notes where it waits for a commit.
    private mutating func withSender<E: Error>(_ body: (inout EventSender) throws(E) -> [SessionAction]) throws(E) -> [SessionAction] {
        guard var machine = sender else { return [] }
        let actions = try body(&machine)
        sender = machine
        for case .awaitCommit(let after) in actions { awaitingCommitAfter = after }
        return actions
    }
}
