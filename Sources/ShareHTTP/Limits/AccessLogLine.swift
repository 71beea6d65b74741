import ShareLog

/// One line of the access log (docs/HTTP.md "Access log"): the method,
/// route, status, body bytes, the handler's time in microseconds, and at
/// most the daily keyed tag of a record name. Never the path, the query,
/// `Referer`, or the client's address: a log is not a list of who saw whose card.
///
/// `http method=GET route=/appclip status=200 bytes=1532 us=87 tag=1f2e3d4c5b6a7988`
public struct AccessLogLine: Sendable, CustomStringConvertible {
    public var method: String
    public var route: GatewayRoute
    public var status: Int
    public var bytes: Int
    public var microseconds: Int64
    public var tag: String?

    public init(method: String, route: GatewayRoute, status: Int, bytes: Int, microseconds: Int64, tag: String?) {
        self.method = method
        self.route = route
        self.status = status
        self.bytes = bytes
        self.microseconds = microseconds
        self.tag = tag
    }

    /// The method as logged: one of the methods HTTP defines, or `other`,
    /// so a client cannot write into the log through its method token.
    static func loggable(_ method: String) -> String {
        ["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH", "TRACE", "CONNECT"].contains(method) ? method : "other"
    }

    public var description: String {
        "http method=\(Self.loggable(method)) route=\(route.rawValue) status=\(status) bytes=\(bytes) us=\(microseconds)" + (tag.map { " tag=\($0)" } ?? "")
    }

    /// `http.request`: the line as its message, its parts as fields.
    public var logRecord: LogRecord {
        var fields: [(name: String, value: LogValue)] = [
            ("method", LogValue(Self.loggable(method))), ("route", LogValue(route.rawValue)), ("status", LogValue(status)),
            ("bytes", LogValue(bytes)), ("microseconds", LogValue(microseconds)),
        ]
        if let tag { fields.append(("tag", LogValue(tag))) }
        return LogRecord(status >= 500 ? .error : .info, "http.request", description, fields)
    }
}
