/// Why a handshake did not establish a session. The side that detects it
/// sends the peer an `error` with `code` when it can, then closes.
public enum HandshakeFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// The two sides share no protocol version.
    case versionMismatch(ours: ClosedRange<UInt16>, theirs: ClosedRange<UInt16>)
    /// The peer did not prove it holds the key, or its proof is wrong.
    case notAuthenticated(String)
    /// The role may not do what it asked for.
    case roleForbidden(String)
    /// The peer sent something else than the handshake's next message.
    case unexpected(FrameType)
    /// The peer refused the session with an `error` message.
    case refused(SyncErrorCode, String)
    /// The server's `accepted` claims more of this replica's own events
    /// than it made: refused, and the id kept.
    case claimsUnmadeEvents(UnmadeEventsClaim)

    public var description: String {
        switch self {
        case .versionMismatch(let ours, let theirs):
            "no common protocol version: this side speaks \(Self.text(ours)), the peer \(Self.text(theirs)); upgrade the older side"
        case .notAuthenticated(let why): "authentication failed: \(why)"
        case .roleForbidden(let why): "not allowed: \(why)"
        case .unexpected(let type): "the peer sent \(type) during the handshake; it is not a ShareLog sync peer of this version"
        case .refused(let code, let message): "the peer refused the session: \(PeerText.quoted(message)) (\(code))"
        case .claimsUnmadeEvents(let claim): "\(claim)"
        }
    }

    /// The code of the `error` message that tells the peer.
    var code: SyncErrorCode {
        switch self {
        case .versionMismatch: .versionMismatch
        case .notAuthenticated: .authenticationFailed
        case .roleForbidden: .roleForbidden
        case .unexpected: .unexpectedMessage
        case .refused(let code, _): code
        case .claimsUnmadeEvents: .unmadeEventsClaimed
        }
    }

    private static func text(_ range: ClosedRange<UInt16>) -> String {
        range.lowerBound == range.upperBound ? "version \(range.lowerBound)" : "versions \(range.lowerBound)–\(range.upperBound)"
    }
}
