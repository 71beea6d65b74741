import ShareLog

/// What an `HTTPServer` serves: the answer to each request, and what
/// follows an answer. `Gateway` (the link's domain) and `MetricsEndpoint`
/// (an operator's scrapes) are the two.
///
/// Called from libmicrohttpd's threads, several at once: it must be
/// thread-safe and must not block for long, as a connection's thread waits
/// for it.
public protocol HTTPResponder: Sendable {
    /// The answer to `request`.
    func respond(to request: GatewayRequest) -> GatewayResponse

    /// Called once per answered request, once its answer is queued, with
    /// the time `respond` took: the server's log record for it, or nil for
    /// none.
    func answered(_ request: GatewayRequest, _ response: GatewayResponse, microseconds: Int64) -> LogRecord?
}
