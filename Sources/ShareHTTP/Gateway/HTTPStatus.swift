/// An HTTP status the gateway answers with: its code and reason phrase
/// (RFC 9110 §15). Only the statuses in docs/HTTP.md exist.
public struct HTTPStatus: Hashable, Sendable, CustomStringConvertible {
    public let code: Int
    public let reason: String

    private init(_ code: Int, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public static let ok = HTTPStatus(200, "OK")
    public static let created = HTTPStatus(201, "Created")
    public static let noContent = HTTPStatus(204, "No Content")
    public static let notModified = HTTPStatus(304, "Not Modified")
    public static let badRequest = HTTPStatus(400, "Bad Request")
    public static let unauthorized = HTTPStatus(401, "Unauthorized")
    public static let forbidden = HTTPStatus(403, "Forbidden")
    public static let notFound = HTTPStatus(404, "Not Found")
    public static let methodNotAllowed = HTTPStatus(405, "Method Not Allowed")
    public static let notAcceptable = HTTPStatus(406, "Not Acceptable")
    public static let conflict = HTTPStatus(409, "Conflict")
    public static let gone = HTTPStatus(410, "Gone")
    public static let contentTooLarge = HTTPStatus(413, "Content Too Large")
    public static let uriTooLong = HTTPStatus(414, "URI Too Long")
    public static let unsupportedMediaType = HTTPStatus(415, "Unsupported Media Type")
    public static let unprocessableContent = HTTPStatus(422, "Unprocessable Content")
    public static let tooManyRequests = HTTPStatus(429, "Too Many Requests")
    public static let headersTooLarge = HTTPStatus(431, "Request Header Fields Too Large")
    public static let internalError = HTTPStatus(500, "Internal Server Error")
    public static let unavailable = HTTPStatus(503, "Service Unavailable")

    /// 4xx: the client's fault; such answers are never stored by a cache.
    public var isClientError: Bool { (400..<500).contains(code) }

    public var description: String { "\(code) \(reason)" }
}
