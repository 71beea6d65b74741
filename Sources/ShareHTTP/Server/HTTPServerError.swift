import ShareSync

/// Why an `HTTPServer` could not start, or could not take a new
/// certificate (`replaceCertificate(with:)`).
public enum HTTPServerError: Error, Sendable, CustomStringConvertible {
    /// Only `tcp:` and `unix:` endpoints can be served.
    case unsupportedEndpoint(Endpoint)
    /// The address could not be listened on.
    case listen(TransportError)
    /// libmicrohttpd refused to start; the log has its reason.
    case start(String)
    /// TLS was asked for and this libmicrohttpd has none.
    case noTLS
    /// A certificate was given to a server that speaks plain HTTP.
    case plainHTTP
    /// The server has stopped.
    case stopped

    public var description: String {
        switch self {
        case .unsupportedEndpoint(let endpoint): "cannot serve HTTP on \(endpoint): give tcp:HOST:PORT or unix:PATH"
        case .listen(let error): "cannot listen: \(error)"
        case .start(let reason): "libmicrohttpd did not start: \(reason)"
        case .noTLS: "this libmicrohttpd was built without TLS; serve plain HTTP behind a TLS terminator instead"
        case .plainHTTP: "this server speaks plain HTTP, so it has no certificate to replace; start it with one to serve HTTPS"
        case .stopped: "the server has stopped"
        }
    }
}
