import ShareLog

/// Why a session ended early. Each case says what the peer did or what
/// failed, in words a log line can carry, and maps to the code the `error`
/// message tells the peer.
public enum SessionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The peer sent a message that is well formed but not allowed now;
    /// the phase says what this side was doing, or the rule it broke.
    case unexpected(FrameType, while: SessionPhase)
    /// A batch would move the cursor back.
    case cursorMovedBack(from: UInt64, to: UInt64)
    /// The peer acknowledged a position it was never sent.
    case ackBeyondSent(acked: UInt64, sent: UInt64)
    /// The peer acknowledged a batch twice, or out of order, or none was
    /// waiting for its ack (`awaiting` nil).
    case ackOutOfTurn(acked: UInt64, awaiting: UInt64?)
    /// The peer asked for a snapshot twice in one session: the snapshot
    /// did not give it a cursor it accepts, and trying again would loop.
    case snapshotLoop
    /// The peer ended the session with an error message.
    case peerError(SyncErrorCode, String)
    /// A clip asked for nothing for this long; its place went to others.
    case clipIdle(Duration)
    /// The peer's pull claims more of this replica's own events than it
    /// made: nothing is sent, and the id is kept.
    case claimsUnmadeEvents(UnmadeEventsClaim)

    public var description: String {
        switch self {
        case .unexpected(let type, let phase):
            "the peer sent \(type) while \(phase); it does not follow the protocol"
        case .cursorMovedBack(let from, let to):
            "the peer sent a batch through position \(to), behind the cursor at \(from)"
        case .ackOutOfTurn(let acked, let awaiting):
            "the peer acknowledged position \(acked), "
                + (awaiting.map { "and the batch waiting for its ack is through \($0)" } ?? "and no batch was waiting for an ack")
        case .ackBeyondSent(let acked, let sent):
            "the peer acknowledged position \(acked), and only \(sent) was sent"
        case .snapshotLoop:
            "the peer asked for a second snapshot in one session; stopping rather than looping"
        case .peerError(let code, let message):
            "the peer ended the session: \(PeerText.quoted(message)) (\(code))"
        case .clipIdle(let timeout):
            "the clip asked for nothing for \(timeout); its place goes to other clips (fetch again to reconnect)"
        case .claimsUnmadeEvents(let claim):
            "\(claim)"
        }
    }

    /// The code an `error` message carries for this failure.
    var code: SyncErrorCode {
        switch self {
        case .unexpected, .cursorMovedBack, .ackBeyondSent, .ackOutOfTurn: .unexpectedMessage
        case .snapshotLoop: .snapshotFailed
        case .peerError(let code, _): code
        case .clipIdle: .idle
        case .claimsUnmadeEvents: .unmadeEventsClaimed
        }
    }
}
