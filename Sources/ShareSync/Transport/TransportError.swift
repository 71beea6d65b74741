/// Why a transport could not listen, connect, read, write or secure a
/// connection. Each description says what happened in plain words and what
/// to do next.
public enum TransportError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The endpoint's text or address is not usable.
    case endpoint(EndpointError)
    /// `stdio` was given where a socket is needed (listening, connecting).
    case stdioIsNotASocket
    /// Nothing accepts connections at the endpoint (`ECONNREFUSED`).
    case connectionRefused(Endpoint)
    /// No socket file exists at the path of a `unix:` endpoint (`ENOENT`).
    case noSuchSocket(path: String)
    /// The server at a `unix:` endpoint runs as another user (`uid`), who
    /// could have taken the path first to hear what this side sends.
    case socketOfAnotherUser(path: String, uid: UInt32)
    /// Another server already listens at the endpoint.
    case addressInUse(Endpoint)
    /// The path of a `unix:` endpoint holds something that is not a socket,
    /// which a listener never replaces.
    case notASocket(path: String)
    /// The socket file came out readable or writable by other users.
    case unsafeSocketMode(path: String, mode: UInt32)
    /// The deadline passed while waiting for `waitingFor`.
    case timedOut(waitingFor: String)
    /// The peer closed the connection while bytes were still owed to it or
    /// expected from it.
    case peerClosed(peer: String)
    /// The peer's system reset the connection (`ECONNRESET`).
    case connectionReset(peer: String)
    /// The channel or listener was used after `close()`.
    case channelClosed
    /// The TLS handshake failed because the two sides hold different keys.
    /// `details` are OpenSSL's error strings.
    case tlsKeyMismatch(peer: String, details: [String])
    /// The peer sent bytes that are not TLS: a plain client on a TLS port,
    /// or a TLS client at a plain server. `details` are OpenSSL's strings.
    case tlsNotSpoken(peer: String, details: [String])
    /// Any other TLS failure during `operation`, with OpenSSL's strings.
    case tls(operation: String, peer: String, details: [String])
    /// A system call failed with `errno`.
    case system(operation: String, errno: Int32)
    /// The command of an `exec:` endpoint ended (or could not be run)
    /// before the session did: its end of the pipes closed.
    case commandEnded(command: String, CommandExit)

    public var description: String {
        switch self {
        case .endpoint(let error):
            "\(error)"
        case .stdioIsNotASocket:
            "stdio and exec: are not sockets: they can neither listen nor connect; serve with --stdio, or use unix:PATH or tcp:HOST:PORT"
        case .connectionRefused(let endpoint):
            "nothing accepts connections at \(endpoint): start 'sharelog serve --listen \(endpoint)' there, or check the address"
        case .noSuchSocket(let path):
            "no socket at \(path): start 'sharelog serve --listen unix:\(path)', or check the path"
        case .socketOfAnotherUser(let path, let uid):
            "the server at \(path) runs as uid \(uid), not as this user: another user may have taken the path to hear what is sent; "
                + "nothing was sent. Serve and sync as the same user, in a directory only that user can write"
        case .addressInUse(let endpoint):
            "another server already listens at \(endpoint): stop it, or choose another address"
        case .notASocket(let path):
            "\(path) exists and is not a socket, so it is left alone: choose another path, or remove it yourself"
        case .unsafeSocketMode(let path, let mode):
            "the socket \(path) came out with mode \(String(mode & 0o7777, radix: 8)), open to other users, "
                + "so it was removed: listen in a directory of your own"
        case .timedOut(let what):
            "timed out waiting for \(what): the peer is stalled, gone or too slow; try again, or check the peer"
        case .peerClosed(let peer):
            "\(peer) closed the connection early; check its log, then sync again"
        case .connectionReset(let peer):
            "\(peer) reset the connection; check its log, then sync again"
        case .channelClosed:
            "the connection was already closed by this side"
        case .tlsKeyMismatch(let peer, let details):
            "TLS handshake failed: the peer does not hold this key (\(peer)); give both sides the same key file, "
                + "see 'Transports and keys' in docs/SYNC.md" + Self.openSSL(details)
        case .tlsNotSpoken(let peer, let details):
            "TLS handshake failed: \(peer) does not speak TLS; a tcp: endpoint needs 'sharelog serve' and 'sharelog sync' "
                + "both with --key-file" + Self.openSSL(details)
        case .tls(let operation, let peer, let details):
            "TLS \(operation) with \(peer) failed" + Self.openSSL(details)
        case .system(let operation, let code):
            "\(operation) failed: \(Posix.message(code)) (errno \(code))"
        case .commandEnded(let command, .exited(127)):
            "the command '\(command)' could not be run: the shell found no such command (exit status 127); check the command after exec:"
        case .commandEnded(let command, .exited(126)):
            "the command '\(command)' could not be run: it is not executable (exit status 126); check the command after exec:"
        case .commandEnded(let command, let exit):
            "the command '\(command)' ended (\(exit)) before the session did: check the command after exec: "
                + "(its own messages, if any, went to standard error), or run it by hand"
        }
    }

    private static func openSSL(_ details: [String]) -> String {
        details.isEmpty ? "" : " (OpenSSL: \(details.joined(separator: "; ")))"
    }
}
