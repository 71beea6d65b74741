import ShareLog

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
    /// Main sessions served at once, counting only connections whose
    /// handshake is done; one beyond it is told `busy`.
    public var maxConnections = 64
    /// Clip sessions served at once, in a pool of their own so that clips
    /// never take a main's place; one beyond it is told `busy`. A clip
    /// that asks for nothing for `options.clipIdleTimeout` gives its place up.
    public var maxClipSessions = 16
    /// Connections whose handshake is not done yet, held without a thread
    /// (`Vestibule`); when that many wait, the longest-waiting is dropped
    /// to seat a new one.
    public var maxWaitingConnections = 256
    /// Where the server logs one record per session, and its own events.
    /// Called from the accept thread and every session thread: it must not
    /// block (`LogQueue` is a log that never does). Peer text in a line is
    /// quoted and cut.
    public var log: @Sendable (LogRecord) -> Void = { _ in }
    /// Where the server counts its sessions, when its process exposes
    /// metrics (docs/OPERATIONS.md "Metrics").
    public var metrics: SyncServerMetrics?

    public init(endpoint: Endpoint) { self.endpoint = endpoint }
}
