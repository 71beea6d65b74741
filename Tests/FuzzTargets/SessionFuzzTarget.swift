import ShareSync

/// Fuzzes the rules of an established session alone (the `session`
/// target): `SessionMachine`, with the directions' machines in it
/// (`EventReceiver`, `EventSender`, `ClipFetcher`), with no store, no
/// channel and no runner. The input (`SessionFuzzInput`) says which side,
/// role and directions the session has, what the side's store holds, and
/// what comes: the peer's messages, of every type, and other processes'
/// commits and trims. `SessionFuzzRun` drives the machine as
/// `SessionRunner` does, answering the reads and claim checks it asks
/// for from the input and from a log that answers as a store would
/// (`SessionFuzzLog`). (`ExchangeFuzzTarget` runs the handshake and
/// `SessionRunner` end to end over a channel against a real store.)
///
/// Contracts: no trap, whatever comes; every answer of the machine keeps
/// `SessionInvariants` (a message of a type that may not come is refused
/// with `unexpected`; events are applied only as a message brought them,
/// and acknowledged only after, with the batch's `through`, never going
/// back; only a sending side reads and sends events, only a clip's server
/// answers fetches; at most two batches unacknowledged; a claim check
/// before anything else for a pull with `heldOfYou`, and a claim of more
/// than this side made refused) and is the answer
/// `ReferenceSession` gives, written from docs/SYNC.md; whether the
/// session is complete, or ended, is the reference's answer after every
/// action, and stays so; the machine never asks the store for a read it
/// traps on. A refusal is a `SessionError` with a description.
///
/// - Returns: `accepted` with the side, role, directions and counts, and
///   whether the session ended (the peer's `bye` or `shuttingDown`), is complete (a client's directions all done) or is still
///   open when the input runs out; `rejected` with the refusal's
///   description.
enum SessionFuzzTarget {
    static func run(_ input: UnsafeRawBufferPointer) throws(FuzzViolation) -> FuzzOutcome {
        var run = SessionFuzzRun(Array(input))
        if let error = try run.drive() { return .rejected(error.description) }
        let directions = run.peer.role == .clip ? "" : " \(SessionInvariants.names(run.peer.directions))"
        let counts =
            "messages \(run.messagesTaken), events applied \(run.invariants.eventsApplied), "
            + "acks \(run.invariants.acksSent), batches sent \(run.invariants.batchesSent)"
        let end = run.ended ? "ended" : run.isComplete ? "complete" : "open"
        return .accepted("\(run.side) \(run.peer.role)\(directions): \(counts), \(end)")
    }
}
