/// Where a session stood when the peer sent a message it may not send then
/// (`SessionError.unexpected(_:while:)`): what the side that refused it was
/// doing, or the rule the message broke. Tests and callers match these
/// cases; `description` is the clause that follows "while" in the error's
/// message.
public enum SessionPhase: Equatable, Sendable, CustomStringConvertible {
    // The sending direction (`EventSender`).
    /// No pull yet, or a snapshot ended and a new pull is due.
    case awaitingPull
    /// Sending the events the peer pulled.
    case streaming
    /// Caught up in follow mode: waiting for a commit to send.
    case followingCommits
    /// The peer's cursor could not be served; its snapshot request is due.
    case cursorRefused
    /// Sending a snapshot of the log.
    case sendingSnapshot
    /// Caught up without follow: this side has sent all it will.
    case sendingDone
    /// The peer's pull gave a position past 0 with no cursor epoch.
    case pullWithoutEpoch(after: UInt64)

    // The receiving direction (`EventReceiver`).
    /// No pull sent yet.
    case startingPull
    /// A pull is out; batches come.
    case pulling
    /// Caught up, staying open for the peer's new events (follow mode).
    case followingPeer
    /// Receiving a snapshot of the peer's store.
    case receivingSnapshot
    /// Caught up without follow: this side has received all it asked for.
    case receivingDone

    // The session as a whole (`SessionMachine`, `ClipFetcher`).
    /// A client got `bye`, which only a client sends.
    case clientDirectionsOpen
    /// The session has no receiving direction here.
    case notReceiving
    /// The session has no sending direction here.
    case notSending
    /// A main session: fetches are a clip's.
    case mainSession
    /// No fetch of this side's is out.
    case notFetching
    /// The handshake is over.
    case established
    /// A pull of the peer's already waits for this side's own pull to catch up.
    case pullHeld
    /// A fetch of `names` record names is out, and its records are due.
    case awaitingRecords(names: Int)

    public var description: String {
        switch self {
        case .awaitingPull: "waiting for a pull"
        case .streaming: "streaming events"
        case .followingCommits: "following this side's commits"
        case .cursorRefused: "waiting for a snapshot request after refusing a cursor"
        case .sendingSnapshot: "sending a snapshot"
        case .sendingDone: "done sending"
        case .pullWithoutEpoch(let position): "no cursor epoch was given for position \(position)"
        case .startingPull: "not yet pulling"
        case .pulling: "pulling"
        case .followingPeer: "following the peer's commits"
        case .receivingSnapshot: "receiving a snapshot"
        case .receivingDone: "done receiving"
        case .clientDirectionsOpen: "the client's directions were not done (only a client ends a session)"
        case .notReceiving: "not receiving in this session"
        case .notSending: "not sending in this session"
        case .mainSession: "in a main session"
        case .notFetching: "not fetching"
        case .established: "established"
        case .pullHeld: "a pull was already waiting for this side's own pull to catch up"
        case .awaitingRecords(let names): "waiting for the records of \(names) names"
        }
    }
}
