/// One HTTP request as the gateway sees it: what the server library
/// parsed, and nothing it would have to trust more than that. A value, so
/// the handler can be tested and fuzzed without a socket.
public struct GatewayRequest: Sendable {
    /// The method token as sent (`GET`, `HEAD`, …); case-sensitive (RFC 9110 §9.1).
    public var method: String
    /// The request target exactly as sent, in origin form: the path and,
    /// after `?`, the query (`/appclip?id=…`). Never percent-decoded.
    public var target: String
    /// The `Accept` header field's value, nil without one.
    public var accept: String?
    /// The `If-None-Match` header field's value, nil without one.
    public var ifNoneMatch: String?
    /// The `X-Forwarded-For` header field's value: read only when the
    /// request came from a trusted proxy (`GatewayConfiguration.trustedProxies`).
    public var forwardedFor: String?
    /// The size of all header field names and values, for the 431 limit.
    public var headerBytes: Int
    /// The peer of the connection.
    public var client: ClientAddress
    /// The `Content-Type`, `Authorization` and `Idempotency-Key` header
    /// fields' values, nil without one.
    public var contentType: String?
    public var authorization: String?
    public var idempotencyKey: String?
    /// The request's body, whole: empty unless the responder takes one
    /// for this request (`HTTPResponder.bodyLimit`).
    public var body: [UInt8]
    /// The body was larger than the responder's limit, and was not read.
    public var bodyOverLimit: Bool

    public init(
        method: String, target: String, accept: String? = nil, ifNoneMatch: String? = nil,
        forwardedFor: String? = nil, headerBytes: Int = 0, client: ClientAddress = .ipv4(0x7F00_0001),
        contentType: String? = nil, authorization: String? = nil, idempotencyKey: String? = nil,
        body: [UInt8] = [], bodyOverLimit: Bool = false
    ) {
        self.method = method
        self.target = target
        self.accept = accept
        self.ifNoneMatch = ifNoneMatch
        self.forwardedFor = forwardedFor
        self.headerBytes = headerBytes
        self.client = client
        self.contentType = contentType
        self.authorization = authorization
        self.idempotencyKey = idempotencyKey
        self.body = body
        self.bodyOverLimit = bodyOverLimit
    }
}
