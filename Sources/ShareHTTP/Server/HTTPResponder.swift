import ShareLog

/// What an `HTTPServer` serves: the answer to each request, and what
/// follows an answer. `Gateway` (the link's domain) and `MetricsEndpoint`
/// (an operator's scrapes) are the two.
///
/// Called from libmicrohttpd's threads, several at once: it must be
/// thread-safe and must not block for long, as a connection's thread waits
/// for it, with every other connection that thread serves; except for the
/// requests it says may block (`mayBlock`), which are answered from a
/// worker thread.
public protocol HTTPResponder: Sendable {
    /// The answer to `request`.
    func respond(to request: GatewayRequest) -> GatewayResponse

    /// The most bytes of body `respond` takes for `request`, whose header
    /// is in and whose body is not (empty), or nil when it takes none: a
    /// responder can refuse to read the body of a request it will refuse
    /// anyway (one without valid credentials). A larger body is never
    /// kept, and `respond` gets the request with `bodyOverLimit` set
    /// instead. `GET` and `HEAD` are never asked: their body is read and
    /// dropped.
    func bodyLimit(for request: GatewayRequest) -> Int?

    /// Whether answering `request` (its header in, its body not) may wait
    /// on something slow, such as a durable commit. Such a request's
    /// connection is suspended and `respond` runs on a worker thread, so
    /// the libmicrohttpd thread goes on serving its other connections,
    /// and writes from many connections can wait in one group commit.
    func mayBlock(_ request: GatewayRequest) -> Bool

    /// Called once per answered request, once its answer is queued, with
    /// the time `respond` took: the server's log record for it, or nil for
    /// none.
    func answered(_ request: GatewayRequest, _ response: GatewayResponse, microseconds: Int64) -> LogRecord?
}

extension HTTPResponder {
    /// No body for any request: every method but `GET` and `HEAD` is
    /// answered from its header alone.
    public func bodyLimit(for request: GatewayRequest) -> Int? { nil }

    /// Nothing blocks: every request is answered on libmicrohttpd's thread.
    public func mayBlock(_ request: GatewayRequest) -> Bool { false }
}
