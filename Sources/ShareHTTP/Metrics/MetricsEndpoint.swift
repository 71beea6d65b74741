import ShareLog
import ShareMetrics
import SharePrimitives

/// An operator's side of a long-running process (`sharelog serve`, `http`,
/// `relay` with `--metrics`; docs/OPERATIONS.md "Metrics"), served by an
/// `HTTPServer` of its own:
///
/// - `GET /metrics`: the registry in Prometheus's text exposition format;
/// - `GET /healthz`: 200 while the process can read its store (the check
///   runs at each request), 503 otherwise;
/// - `GET /readyz`: 200 once the process serves (its listener is up, or
///   its relay is running), 503 while it starts and once it stops.
///
/// Anything else is 404, or 405 for a method other than `GET` or `HEAD`.
/// Answers are never cached and never logged: a scrape every 15 s would
/// fill the log.
public final class MetricsEndpoint: HTTPResponder {
    /// Where the process is in its life, as `/readyz` tells it.
    public enum Readiness: String, Sendable {
        case starting, ready, stopping
    }

    private let registry: MetricsRegistry
    private let isHealthy: @Sendable () -> Bool
    private let readiness = Locked(Readiness.starting)

    /// - Parameter health: whether the process can read its store; run at
    ///   each `/healthz`, on the scraper's connection thread.
    public init(registry: MetricsRegistry, health: @escaping @Sendable () -> Bool) {
        self.registry = registry
        self.isHealthy = health
    }

    /// What `/readyz` answers from now on.
    public func set(_ readiness: Readiness) { self.readiness.withLock { $0 = readiness } }

    public func respond(to request: GatewayRequest) -> GatewayResponse {
        let path = request.target.prefix { $0 != "?" }
        guard ["/metrics", "/healthz", "/readyz"].contains(path) else { return Self.text(.notFound, "not found: try /metrics, /healthz or /readyz\n") }
        guard request.method == "GET" || request.method == "HEAD" else {
            var response = Self.text(.methodNotAllowed, "only GET and HEAD\n")
            response.headers.append(HTTPHeader("Allow", "GET, HEAD"))
            return response
        }
        switch path {
        case "/metrics":
            return Self.text(.ok, registry.exposition(), contentType: TextExposition.contentType)
        case "/healthz":
            return isHealthy() ? Self.text(.ok, "ok\n") : Self.text(.unavailable, "the store cannot be read\n")
        default:
            let readiness = readiness.withLock { $0 }
            return Self.text(readiness == .ready ? .ok : .unavailable, readiness.rawValue + "\n")
        }
    }

    public func answered(_ request: GatewayRequest, _ response: GatewayResponse, microseconds: Int64) -> LogRecord? { nil }

    private static func text(_ status: HTTPStatus, _ body: String, contentType: String = "text/plain; charset=utf-8") -> GatewayResponse {
        GatewayResponse(
            status: status, headers: [HTTPHeader("Content-Type", contentType), HTTPHeader("Cache-Control", "no-store")], body: Array(body.utf8),
            route: .unknown)
    }
}
