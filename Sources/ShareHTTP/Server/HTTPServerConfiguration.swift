import ShareSync

/// How an `HTTPServer` listens, and its limits against abuse
/// (docs/HTTP.md "Limits").
public struct HTTPServerConfiguration: Sendable {
    /// `tcp:HOST:PORT` (port 0 takes a free port) or `unix:PATH`.
    public var endpoint: Endpoint
    /// PEM certificate chain and private key: with them the server speaks
    /// TLS 1.2 and 1.3 only; without, plain HTTP (for loopback, or behind
    /// a TLS terminator). `HTTPServer.replaceCertificate(with:)` replaces
    /// them while it runs.
    public var tls: TLSCredentials?
    /// Threads, each with its own epoll loop.
    public var threads = 2
    /// Connections open at once, in all; more are refused at accept.
    public var maxConnections = 1024
    /// Connections open at once from one address (TCP only).
    public var maxConnectionsPerAddress = 16
    /// How long a connection may take to send a request's whole header,
    /// from its accept or from the end of its previous answer: a
    /// slowloris client that trickles bytes is cut off here, whatever its pace.
    public var headerTimeout: Duration = .seconds(10)
    /// How long a connection may stay silent in the middle of anything.
    public var idleTimeout: Duration = .seconds(10)
    /// Memory for one connection's request line and header, in bytes;
    /// beyond it libmicrohttpd answers 414 or 431 itself.
    public var memoryPerConnection = 32 * 1024

    public init(endpoint: Endpoint) { self.endpoint = endpoint }
}
