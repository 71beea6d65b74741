import ShareMetrics

/// What the gateway counts into a `MetricsRegistry` (docs/OPERATIONS.md
/// "Metrics"): answers by route and status code, and how long each route
/// took to answer. Route names never hold what a client sent.
public final class GatewayMetrics: Sendable {
    private let requests: Counter
    private let duration: Histogram
    private let writes: Counter

    /// Makes the gateway's families in `registry`.
    public init(registry: MetricsRegistry) {
        requests = registry.counter(
            "sharelog_http_requests_total", "HTTP answers by route (share, site_association, shares, other) and status code.", labels: ["route", "code"])
        duration = registry.histogram(
            "sharelog_http_request_duration_seconds", "Time to make an HTTP answer, by route, from the complete request to the queued answer.",
            labels: ["route"])
        writes = registry.counter(
            "sharelog_http_writes_total", "Write API requests by token name (- when none was accepted), action and outcome.",
            labels: ["token", "action", "outcome"])
        requests.increment(by: 0, Self.name(.share), "200")
    }

    func answered(_ response: GatewayResponse, seconds: Double) {
        let route = Self.name(response.route)
        requests.increment(route, "\(response.status.code)")
        duration.observe(seconds, route)
        if let audit = response.audit { writes.increment(audit.token ?? "-", audit.action, audit.outcome) }
    }

    /// The label of `route`: a word, where the access log has a path.
    static func name(_ route: GatewayRoute) -> String {
        switch route {
        case .share: "share"
        case .siteAssociation: "site_association"
        case .shares: "shares"
        case .unknown: "other"
        }
    }
}
