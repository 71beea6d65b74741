import ShareLog
@testable import ShareSync

/// An established session as docs/SYNC.md ("Sessions", "Messages",
/// "Follow", "Identity", "Server") and the doc comments of `SessionMachine`
/// and `SessionAction` describe it, written apart from `SessionMachine` for
/// `SessionFuzzTarget`, which checks the machine's every answer against
/// this one's. Its directions are `ReferenceReceiver`, `ReferenceSender`
/// and `ReferenceFetcher`; on top of them:
///
/// - which message types may come at all (`mayCome`): never a handshake
///   message; `heartbeat` and `error` always; `bye` only to a server; the
///   puller's messages (`pull`, `ack`, `snapshotRequest`) only to a side
///   that sends events, the sender's only to one that receives them;
///   `fetch` only to a clip's server, `records` only to a clip;
/// - `heartbeat` changes nothing; `bye`, and a client's `shuttingDown`,
///   end a server's session well; any other `error` is the peer's error;
/// - a `pull` with `heldOfYou` not 0 asks for the claim check before
///   anything else; a claim of more than this side made is refused
///   (`claimsUnmadeEvents`), and nothing is sent;
/// - a client that pulls and pushes answers the server's pull only once its
///   own pull has caught up (it holds one pull; a second is `unexpected`);
/// - a client's session is complete when each of its directions is (and
///   every batch it sent acknowledged); a server's only when it ended.
struct ReferenceSession {
    let side: SessionMachine.Side
    let peer: EstablishedPeer
    private(set) var receiver: ReferenceReceiver?
    private(set) var sender: ReferenceSender?
    private var fetcher: ReferenceFetcher?
    private var heldPull: Message.Pull?
    private var checking: Message.Pull?
    private(set) var ended = false

    init(side: SessionMachine.Side, peer: EstablishedPeer, maxBatchBytes: Int, receiving: (cursor: PeerCursor?, heldOfPeer: UInt64)?, names: [RecordName]) {
        self.side = side
        self.peer = peer
        if Self.receives(side, peer), let receiving {
            receiver = ReferenceReceiver(
                peerEpoch: peer.epoch, cursor: receiving.cursor, follow: peer.directions.contains(.follow), maxBatchBytes: maxBatchBytes,
                heldOfPeer: receiving.heldOfPeer)
        }
        if Self.sends(side, peer) { sender = ReferenceSender(maxBatchBytes: maxBatchBytes) }
        if peer.role == .clip, side == .client { fetcher = ReferenceFetcher(names: names) }
    }

    /// Whether `side` receives events: a main client that pulls, a main's
    /// server that is pushed to (`directions` are as the client asked).
    static func receives(_ side: SessionMachine.Side, _ peer: EstablishedPeer) -> Bool {
        peer.role == .main && peer.directions.contains(side == .client ? .pull : .push)
    }

    /// Whether `side` sends events: a main client that pushes, a main's
    /// server that is pulled from.
    static func sends(_ side: SessionMachine.Side, _ peer: EstablishedPeer) -> Bool {
        peer.role == .main && peer.directions.contains(side == .client ? .push : .pull)
    }

    /// Whether a message of `type` may come to `side` of an established
    /// session with `peer` at all; one that may not is refused with
    /// `unexpected`, whatever the state.
    static func mayCome(_ type: FrameType, to side: SessionMachine.Side, of peer: EstablishedPeer) -> Bool {
        switch type {
        case .hello, .welcome, .authenticate, .accepted: false
        case .heartbeat, .error: true
        case .bye: side == .server
        case .pull, .ack, .snapshotRequest: sends(side, peer)
        case .batch, .caughtUp, .snapshotRequired, .snapshotBatch, .snapshotEnd: receives(side, peer)
        case .fetch: peer.role == .clip && side == .server
        case .records: peer.role == .clip && side == .client
        }
    }

    var isComplete: Bool {
        if ended { return true }
        guard side == .client else { return false }
        return (receiver.map { $0.phase == .done } ?? true) && (sender?.isDone ?? true) && (fetcher?.isDone ?? true)
    }

    mutating func start() -> [SessionAction] {
        (receiver?.start() ?? []) + (fetcher?.start() ?? [])
    }

    mutating func receive(_ message: Message) -> ReferenceVerdict {
        guard Self.mayCome(message.type, to: side, of: peer) else { return .refuse(.unexpected(message.type)) }
        switch message {
        case .heartbeat:
            return .accept([])
        case .bye:
            ended = true
            return .accept([])
        case .error(.shuttingDown, _) where side == .server:
            ended = true
            return .accept([])
        case .error(let code, let text):
            return .refuse(.error(.peerError(code, text)))
        case .pull(let pull) where pull.heldOfYou != 0:
            checking = pull
            return .accept([.checkClaim(peerHolds: pull.heldOfYou)])
        case .pull(let pull):
            return pastCheck(pull)
        case .ack, .snapshotRequest:
            return sender!.receive(message)
        case .fetch(let names):
            return .accept([.answerFetch(names)])
        case .records(let records):
            return fetcher!.receive(records)
        default:
            let verdict = receiver!.receive(message)
            guard let pull = heldPull, receiver!.caughtUp else { return verdict }
            heldPull = nil
            return verdict.then { sender!.receive(pull: pull) }
        }
    }

    /// The driver's answer to `.checkClaim`: this side made `made`.
    mutating func claimChecked(madeHere made: UInt64) -> ReferenceVerdict {
        guard let pull = checking else { return .refuse(.unexpected(.pull)) }
        checking = nil
        guard pull.heldOfYou <= made else { return .refuse(.claimsUnmadeEvents(held: pull.heldOfYou, made: made)) }
        return pastCheck(pull)
    }

    mutating func read(_ result: LogRead) -> [SessionAction] { sender?.read(result) ?? [] }

    mutating func readSnapshot(_ part: ReplicationBatch) -> [SessionAction] { sender?.readSnapshot(part) ?? [] }

    mutating func committed(_ last: UInt64) -> [SessionAction] { sender?.committed(last) ?? [] }

    private mutating func pastCheck(_ pull: Message.Pull) -> ReferenceVerdict {
        if side == .client, let receiver, !receiver.caughtUp {
            guard heldPull == nil else { return .refuse(.unexpected(.pull)) }
            heldPull = pull
            return .accept([])
        }
        return sender!.receive(pull: pull)
    }
}
