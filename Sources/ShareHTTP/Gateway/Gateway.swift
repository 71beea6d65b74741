import ShareClip
import ShareLog

/// The gateway's request handler: a `GatewayRequest` in, a
/// `GatewayResponse` out, with no socket in sight (docs/HTTP.md). The
/// server (`HTTPServer`) only carries requests to it and answers back.
///
/// Routes: `GET`/`HEAD /appclip?id=…`, answered by content negotiation;
/// `/.well-known/apple-app-site-association` and `/apple-app-site-association`;
/// everything else is 404 (or 405 for another method on a known route).
///
/// Every answer carries `X-Content-Type-Options: nosniff` and
/// `Referrer-Policy: no-referrer`, and a `Date` from the gateway's clock
/// (so `Expires` agrees with it). 4xx answers are `no-store`.
///
/// Thread-safe: the handler holds no mutable state but its limiters and
/// log tagger, which lock. Cost of a share request: one read transaction
/// (two for the events form), plus rendering.
public final class Gateway: HTTPResponder {
    public let configuration: GatewayConfiguration
    let source: any ShareSource
    /// The time answers are dated by, and shares are live or ended by.
    let clock: any WallClock
    /// The time the rate limits count in (`MonotonicClock` unless a test
    /// sets it).
    let limitClock: any WallClock
    let settings: PageSettings
    let settingsFingerprint: UInt64
    let siteAssociation: [UInt8]?
    let requestLimiter: RateLimiter?
    let missLimiter: RateLimiter?
    let tagger = RecordNameTagger()
    /// Where answers are counted, when the process exposes metrics.
    let metrics: GatewayMetrics?
    /// The write API under `/v1/shares`, when the gateway serves one.
    let writeAPI: WriteAPI?

    /// - Parameters:
    ///   - clock: dates the answers and decides which shares are live.
    ///   - limitClock: the rate limits' time; monotonic by default, so a
    ///     wall clock that is fixed (`--now`) or set back does not freeze
    ///     or stretch anyone's allowance.
    ///   - metrics: counts each answer (`answered`).
    ///   - writeAPI: serves `/v1/shares` (docs/HTTP.md "The write API");
    ///     without it that path is 404 like any other.
    public init(
        source: any ShareSource, configuration: GatewayConfiguration, clock: any WallClock = SystemClock(),
        limitClock: any WallClock = MonotonicClock(), metrics: GatewayMetrics? = nil, writeAPI: WriteAPI? = nil
    ) {
        self.source = source
        self.writeAPI = writeAPI
        self.metrics = metrics
        self.configuration = configuration
        self.clock = clock
        self.limitClock = limitClock
        settings = configuration.pageSettings
        settingsFingerprint = settings.fingerprint
        siteAssociation = SiteAssociation.file(clips: configuration.clipAppIDs, fullApps: configuration.fullAppIDs)
        requestLimiter = configuration.requestLimit.map { RateLimiter($0) }
        missLimiter = configuration.missLimit.map { RateLimiter($0) }
    }

    /// The answer to `request`, at the gateway clock's now.
    public func respond(to request: GatewayRequest) -> GatewayResponse {
        let now = clock.now()
        var response = route(request, at: now)
        var fields = [
            HTTPHeader("Date", HTTPDate.format(now)),
            HTTPHeader("X-Content-Type-Options", "nosniff"),
            HTTPHeader("Referrer-Policy", "no-referrer"),
        ]
        if configuration.strictTransportSecurity { fields.append(HTTPHeader("Strict-Transport-Security", "max-age=31536000")) }
        if response.status.isClientError { fields += CachePolicy.noStore }
        response.headers = fields + response.headers
        return response
    }

    /// An upload's body limit, once its token is accepted (`WriteAPI`);
    /// no other route takes a body.
    public func bodyLimit(for request: GatewayRequest) -> Int? {
        guard let writeAPI else { return nil }
        return writeAPI.bodyLimit(for: request, path: Self.path(of: request), at: clock.now())
    }

    /// The write API's writes (`POST /v1/shares`, `DELETE /v1/shares/ID`)
    /// wait on a durable commit: they are answered off libmicrohttpd's
    /// threads.
    public func mayBlock(_ request: GatewayRequest) -> Bool {
        guard writeAPI != nil, request.method == "POST" || request.method == "DELETE" else { return false }
        return WriteAPI.serves(Self.path(of: request))
    }

    /// Counts the answer in the metrics, when there are any, and gives its
    /// access log record (`http.request`), with the inside failure of a 500.
    public func answered(_ request: GatewayRequest, _ response: GatewayResponse, microseconds: Int64) -> LogRecord? {
        metrics?.answered(response, seconds: Double(microseconds) / 1_000_000)
        var record = logLine(request, response, microseconds: microseconds).logRecord
        if let failure = response.failure {
            let printable = String(failure.unicodeScalars.map { $0.value < 0x20 ? " " : Character($0) })
            record.message += " error=" + printable.debugDescription
            record.fields.append(("error", LogValue(printable)))
        }
        if let audit = response.audit {
            record.message += " token=\(audit.token ?? "-") action=\(audit.action) outcome=\(audit.outcome)"
            record.fields += [("token", LogValue(audit.token ?? "-")), ("action", LogValue(audit.action)), ("outcome", LogValue(audit.outcome))]
        }
        return record
    }

    /// The access log's line for an answer that took `microseconds`.
    public func logLine(_ request: GatewayRequest, _ response: GatewayResponse, microseconds: Int64) -> AccessLogLine {
        AccessLogLine(
            method: request.method, route: response.route, status: response.status.code, bytes: response.sentBody(for: request.method),
            microseconds: microseconds, tag: response.recordName.map { tagger.tag($0, at: clock.now()) })
    }

    private func route(_ request: GatewayRequest, at now: Timestamp) -> GatewayResponse {
        guard request.target.utf8.count <= configuration.maxTargetBytes else {
            return notice(.uriTooLong, route: .unknown, "Link too long", "This address is longer than any card link.")
        }
        guard request.headerBytes <= configuration.maxHeaderBytes else {
            return notice(.headersTooLarge, route: .unknown, "Request too large", "The request carried more header data than this server reads.")
        }
        let path = Self.path(of: request)
        if let writeAPI, WriteAPI.serves(path) { return writeAPI.respond(to: request, path: path, at: now) }
        switch path {
        case "/.well-known/apple-app-site-association", "/apple-app-site-association":
            return siteAssociation(request)
        case "/appclip", "/appclip/":
            guard Self.isReadMethod(request.method) else { return methodNotAllowed(.share) }
            return share(request, at: now)
        default:
            let client = clientKey(of: request), limitNow = limitClock.now()
            if let wait = missLimiter?.take(client, at: limitNow) { return tooManyRequests(wait, route: .unknown) }
            return notice(.notFound, route: .unknown, "Nothing here", "This server answers card links only.")
        }
    }

    private func siteAssociation(_ request: GatewayRequest) -> GatewayResponse {
        guard Self.isReadMethod(request.method) else { return methodNotAllowed(.siteAssociation) }
        guard let siteAssociation else {
            return GatewayResponse(
                status: .notFound, headers: [HTTPHeader("Content-Type", "application/json")],
                body: CardRecord.error(code: "NOT_FOUND", reason: "this gateway was started without --app-id or --full-app-id"),
                route: .siteAssociation)
        }
        return GatewayResponse(
            status: .ok, headers: [HTTPHeader("Content-Type", "application/json")] + CachePolicy.siteAssociation,
            body: siteAssociation, route: .siteAssociation)
    }

    /// The address limits count against: the peer, or for a trusted proxy
    /// the last `X-Forwarded-For` entry it did not add itself.
    func clientKey(of request: GatewayRequest) -> UInt64 {
        guard configuration.trustedProxies.contains(request.client), let forwarded = request.forwardedFor else { return request.client.limitKey }
        for entry in forwarded.split(separator: ",").reversed() {
            guard let address = ClientAddress(text: entry) else { break }
            if !configuration.trustedProxies.contains(address) { return address.limitKey }
        }
        return request.client.limitKey
    }

    private static func isReadMethod(_ method: String) -> Bool { method == "GET" || method == "HEAD" }

    /// The request target's path: up to a query or a fragment.
    private static func path(of request: GatewayRequest) -> Substring { request.target.prefix { $0 != "?" && $0 != "#" } }

    private func methodNotAllowed(_ route: GatewayRoute) -> GatewayResponse {
        var response = notice(.methodNotAllowed, route: route, "Not allowed", "This address can only be read.")
        response.headers.append(HTTPHeader("Allow", "GET, HEAD"))
        return response
    }

    func tooManyRequests(_ wait: Duration, route: GatewayRoute, as representation: Representation = .page) -> GatewayResponse {
        let seconds = max(1, wait.components.seconds + (wait.components.attoseconds > 0 ? 1 : 0))
        var response = error(.tooManyRequests, route: route, as: representation, code: "THROTTLED", "Too many requests", "Try again in \(seconds) seconds.")
        response.headers.append(HTTPHeader("Retry-After", "\(seconds)"))
        return response
    }

    /// A page with a heading and a sentence.
    func notice(_ status: HTTPStatus, route: GatewayRoute, _ heading: String, _ message: String) -> GatewayResponse {
        GatewayResponse(
            status: status,
            headers: [HTTPHeader("Content-Type", Representation.page.contentType), HTTPHeader("Content-Security-Policy", PageStyle.contentSecurityPolicy)],
            body: CardPage.notice(heading, message, settings: settings), route: route)
    }

    /// An error in the form the client asked for: a JSON error for JSON,
    /// plain text for the vCard and events forms, a page otherwise.
    func error(
        _ status: HTTPStatus, route: GatewayRoute, as representation: Representation, code: String, _ heading: String, _ message: String
    ) -> GatewayResponse {
        switch representation {
        case .page:
            return notice(status, route: route, heading, message)
        case .json:
            return GatewayResponse(
                status: status, headers: [HTTPHeader("Content-Type", Representation.json.contentType)],
                body: CardRecord.error(code: code, reason: message), route: route)
        case .vCard, .events:
            return GatewayResponse(
                status: status, headers: [HTTPHeader("Content-Type", "text/plain; charset=utf-8")],
                body: Array("\(heading): \(message)\n".utf8), route: route)
        }
    }
}
