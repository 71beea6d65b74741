import ShareLog

/// The gateway's answer to one request: status, header fields and body,
/// plus what the access log may say about it. The server adds only
/// `Content-Length`, and leaves the body out for `HEAD` and 304.
public struct GatewayResponse: Sendable {
    public var status: HTTPStatus
    public var headers: [HTTPHeader]
    /// The body. For `HEAD` and for a 304, the body a `GET` would get: the
    /// server sends only its length, as `Content-Length` (RFC 9110 §8.6).
    public var body: [UInt8]
    /// Which route answered, for the access log.
    public var route: GatewayRoute
    /// The record name asked for, when there was a valid one: the access
    /// log records only its daily keyed hash (`RecordNameTagger`), never it.
    public var recordName: RecordName?
    /// What went wrong inside the server, for the log of a 500; never sent.
    public var failure: String?
    /// For the write API's audit: the token's name (nil when none was
    /// accepted), the action and its outcome; never a card's bytes.
    public var audit: (token: String?, action: String, outcome: String)?

    /// The body bytes that go on the wire for a request with `method`:
    /// none for `HEAD` and for a 304.
    public func sentBody(for method: String) -> Int { method == "HEAD" || status == .notModified ? 0 : body.count }

    public init(status: HTTPStatus, headers: [HTTPHeader] = [], body: [UInt8] = [], route: GatewayRoute, recordName: RecordName? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.route = route
        self.recordName = recordName
    }

    /// The value of the first header field named `name` (ASCII case-insensitive).
    public func header(_ name: String) -> String? {
        let lowered = name.lowercased()
        return headers.first { $0.name.lowercased() == lowered }?.value
    }
}
