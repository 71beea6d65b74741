/// How a `SyncServer` listens and what it allows.
public struct SyncServerConfiguration: Sendable {
    /// Where to listen: `.unix(path:)` (a socket file of mode 0600),
    /// `.tcp(host:port:)` (TLS 1.3 under `key`), or `.stdio` (one session).
    public var endpoint: Endpoint
    /// The shared key. Required for TCP. When set, every `main` client must
    /// prove it holds it, on every transport; without it, a Unix socket's
    /// file permissions (or ssh, for stdio) are what keep strangers out.
    public var key: SyncKey?
    public var options = SessionOptions()
    /// Sessions served at once, counting only connections that have spoken;
    /// one beyond it gets `error(busy)`.
    public var maxConnections = 64
    /// Connections that have not sent their first bytes yet, held without a
    /// thread (`WaitingRoom`); when that many wait, the longest-waiting is
    /// dropped to seat a new one.
    public var maxWaitingConnections = 256
    /// Where the server writes one line per session, and its own events.
    public var log: @Sendable (String) -> Void = { _ in }

    public init(endpoint: Endpoint) { self.endpoint = endpoint }
}
