import ShareLog

/// Everything that can end a sync session early, by where it came from.
/// Its description is the line a log or a terminal shows.
public enum SyncFailure: Error, Sendable, CustomStringConvertible {
    /// The connection failed: refused, reset, timed out, TLS.
    case transport(TransportError)
    /// A frame did not decode (the stream is out of step).
    case frame(FrameError)
    /// A message did not decode.
    case message(MessageError)
    /// The handshake did not establish a session.
    case handshake(HandshakeFailure)
    /// The peer broke the protocol, or ended the session with an error.
    case session(SessionError)
    /// This store refused or failed to apply what the peer sent, or to
    /// read what the peer asked for.
    case store(ShareLogError)
    /// The peer said nothing, not even a heartbeat, for this long.
    case peerSilent(Duration)
    /// The peer closed the stream in the middle of the session.
    case peerClosed
    /// The store a `SyncClientStore` was to make once the server accepted
    /// was made at `path` by another process in the meantime, under
    /// another replica id than this session announced: nothing moved.
    case storeMadeElsewhere(path: String)

    public var description: String {
        switch self {
        case .transport(let error): "\(error)"
        case .frame(let error): "\(error)"
        case .message(let error): "the peer sent a malformed message: \(error)"
        case .handshake(let failure): "\(failure)"
        case .session(let error): "\(error)"
        case .store(let error): "\(error)"
        case .peerSilent(let duration): "the peer sent nothing for \(duration.components.seconds) s, not even a heartbeat; it is gone"
        case .peerClosed: "the peer closed the connection before the session ended"
        case .storeMadeElsewhere(let path):
            "another process made the store at \(path) while this one connected, under another replica id than this session announced; "
                + "nothing moved: sync again"
        }
    }

    /// Whether the server turned the session away for want of a place: it
    /// answers `busy` in the handshake, in place of its welcome or of
    /// `accepted`, never once a session runs. Worth trying again.
    public var isBusy: Bool {
        if case .handshake(.refused(.busy, _)) = self { true } else { false }
    }

    /// Whether the peer closed or reset the connection (not a command's
    /// pipes: a command that ended is `commandEnded`).
    var isConnectionLost: Bool {
        switch self {
        case .peerClosed, .transport(.peerClosed), .transport(.connectionReset): true
        default: false
        }
    }

    /// The `error` message that tells the peer, when one is due: nothing
    /// can be sent over a broken stream.
    var errorMessage: Message? {
        switch self {
        case .transport, .peerSilent, .peerClosed: nil
        case .frame(let error):
            switch error {
            case .oversized: .error(code: .oversizedFrame, message: "\(error)")
            case .notAllowed: .error(code: .unexpectedMessage, message: "\(error)")
            case .unknownType, .checksumMismatch: .error(code: .malformedFrame, message: "\(error)")
            }
        case .message(let error): .error(code: .malformedFrame, message: "\(error)")
        case .storeMadeElsewhere: .error(code: .internal, message: "another process made the client's store while it connected; the client ends this session")
        case .handshake(let failure):
            if case .refused = failure { nil } else { .error(code: failure.code, message: failure.description) }
        case .session(let error):
            if case .peerError = error { nil } else { .error(code: error.code, message: error.description) }
        case .store(let error):
            switch error {
            case .invalidEvent, .ownOriginConflict:
                .error(code: .invalidEvents, message: "\(error)")
            case .notFound, .expired, .invalidVCard, .invalidTTL, .invalidRecordName, .invalidLink, .storeNotFound,
                .unsupportedStoreVersion, .upgradeRequired, .corruptEvent, .corruptShare, .corruptMeta, .corruptKey,
                .snapshotRequired, .openElsewhere, .handoffRefused, .backupRefused, .cancelled, .storage, .closed,
                .invalidToken, .tokenNameTaken, .tokenNotFound:
                .error(code: .internal, message: "the receiving store failed: \(error)")
            }
        }
    }
}
