import ShareLog

/// What a session's state machines ask their driver to do, in order.
///
/// The machines (`SessionMachine` and the directions' machines in it,
/// `EventReceiver`, `EventSender`, `ClipFetcher`; the handshakes) are plain
/// values: they never touch a store, a socket or a clock. The driver
/// carries out each action and reports what came of it back to the
/// machine that asked, so every step of the protocol can be tested by
/// feeding messages in and reading actions out.
enum SessionAction: Equatable, Sendable {
    /// Write this message to the peer.
    case send(Message)
    /// Apply these events of the peer's in one write transaction that also
    /// sets this replica's cursor on the peer to `cursor` (when given);
    /// once it has committed, send `then` (when given). A failure to apply
    /// ends the session, and nothing of the batch is written.
    case apply(EncodedEvents, cursor: CursorMark?, then: Message?)
    /// Read the run of this store's log after `after` for the peer (of the
    /// store's epoch `epoch`, nil for no cursor), about `maxBytes` of it,
    /// and report it with `EventSender.read(_:)`.
    case readLog(after: UInt64, epoch: Epoch?, maxBytes: Int)
    /// Read the next part of a snapshot (the log after `after`), and
    /// report it with `EventSender.readSnapshot(_:)`.
    case readSnapshot(after: UInt64, maxBytes: Int)
    /// Call `SessionMachine.committed(_:)` once this store's log passes
    /// `after` (follow mode): at once if it already has.
    case awaitCommit(after: UInt64)
    /// This direction of the session is complete.
    case directionDone
    /// The peer's pull says it holds this many of this store's own events:
    /// read how many this store made, and report with
    /// `SessionMachine.claimChecked(madeHere:by:)` before anything is sent.
    case checkClaim(peerHolds: UInt64)
    /// Answer a clip's fetch of these names from the store's indexes
    /// (`ClipServer`), after the delay its guessing earned, with `records`.
    case answerFetch([RecordName])
}

/// A cursor's place in the peer's log, without the time it was seen,
/// which the driver adds from its clock.
struct CursorMark: Hashable, Sendable {
    let epoch: Epoch
    let position: UInt64
    /// The end of a snapshot: the mark replaces the stored cursor even
    /// when it is behind it (`ShareStore.apply(_:resetting:)`).
    var resets = false
}
