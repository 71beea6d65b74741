import ShareLog

/// Why a session ended early. Each case says what the peer did or what
/// failed, in words a log line can carry, and maps to the code the `error`
/// message tells the peer.
public enum SessionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The peer sent a message that is well formed but not allowed now.
    case unexpected(FrameType, while: String)
    /// A batch would move the cursor back.
    case cursorMovedBack(from: UInt64, to: UInt64)
    /// The peer acknowledged a position it was never sent.
    case ackBeyondSent(acked: UInt64, sent: UInt64)
    /// The peer asked for a snapshot twice in one session: the snapshot
    /// did not give it a cursor it accepts, and trying again would loop.
    case snapshotLoop
    /// The peer ended the session with an error message.
    case peerError(SyncErrorCode, String)

    public var description: String {
        switch self {
        case .unexpected(let type, let phase):
            "the peer sent \(type) while \(phase); it does not follow the protocol"
        case .cursorMovedBack(let from, let to):
            "the peer sent a batch through position \(to), behind the cursor at \(from)"
        case .ackBeyondSent(let acked, let sent):
            "the peer acknowledged position \(acked), and only \(sent) was sent"
        case .snapshotLoop:
            "the peer asked for a second snapshot in one session; stopping rather than looping"
        case .peerError(let code, let message):
            "the peer ended the session: \(message) (\(code))"
        }
    }

    /// The code an `error` message carries for this failure.
    var code: SyncErrorCode {
        switch self {
        case .unexpected, .cursorMovedBack, .ackBeyondSent: .unexpectedMessage
        case .snapshotLoop: .snapshotFailed
        case .peerError(let code, _): code
        }
    }
}
