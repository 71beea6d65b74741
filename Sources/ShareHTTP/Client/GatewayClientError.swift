import ShareLog

/// Why `GatewayClient` has no answer for a share link. Each description
/// says what went wrong, with the URL, and what to do about it.
public enum GatewayClientError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The URL (or the base it was made from) is not one the client
    /// fetches; nothing was sent.
    case invalidURL(String, reason: String)
    /// libcurl could not be set up (out of memory, or a libcurl built
    /// without what the client needs); nothing was sent.
    case setup(String)
    /// The host's name did not resolve, or no connection could be made:
    /// nothing listens there, or the network is down.
    case unreachable(url: String, reason: String)
    /// No whole answer came within the client's total timeout.
    case timedOut(url: String, after: Duration)
    /// The TLS handshake failed: the certificate is not trusted, not for
    /// that host or expired, or the server offers nothing from TLS 1.2 up.
    case tls(url: String, reason: String)
    /// The CA file given could not be read as PEM certificates.
    case caFile(path: String, reason: String)
    /// The connection broke before a whole answer came.
    case transfer(url: String, reason: String)
    /// The answer's body is larger than a share's events can be.
    case responseTooLarge(url: String, limit: Int)
    /// An answer other than the gateway's 200, 404 or 410 in ShareLog's
    /// events media type.
    case unexpectedStatus(url: String, status: Int, contentType: String?)
    /// A 200, 404 or 410 in the events media type whose body is not the
    /// events of the share asked for.
    case notTheShare(url: String, name: RecordName, reason: String)
    /// The gateway refused an upload with an answer that another attempt
    /// would get again (the token, the card, the idempotency key); `reason`
    /// is the gateway's.
    case uploadRefused(url: String, status: Int, reason: String)
    /// Every attempt of an upload failed in a way worth retrying; `last`
    /// says how the last one did.
    case retriesExhausted(url: String, attempts: Int, last: String)
    /// A success answer whose body is not what the write API answers.
    case unexpectedAnswer(url: String, reason: String)

    public var description: String {
        switch self {
        case .invalidURL(let url, let reason):
            return "'\(url)' is not a URL to fetch a share from: \(reason)"
        case .setup(let reason):
            return "cannot set up libcurl: \(reason); check the libcurl this program is linked with"
        case .unreachable(let url, let reason):
            return "cannot reach \(url): \(reason); check the address, that a ShareLog gateway (sharelog http) serves there, and the network"
        case .timedOut(let url, let after):
            return "\(url) gave no whole answer within \(after.components.seconds) s: the gateway or the network is slow or down; try again later"
        case .tls(let url, let reason):
            return "TLS with \(url) failed: \(reason); check that the server's certificate is valid now, names that host, and is signed by an authority "
                + "this clip trusts (a private one's PEM goes in the CA file: --ca-file), and that the server speaks TLS 1.2 or later"
        case .caFile(let path, let reason):
            return "cannot use the CA file \(path): \(reason); give a readable PEM file of certificate authorities"
        case .transfer(let url, let reason):
            return "the answer from \(url) broke off: \(reason); try again, and check the gateway's log"
        case .responseTooLarge(let url, let limit):
            return "\(url) answered with more than \(limit) bytes, more than one share's events can be: check that the URL points at a ShareLog gateway"
        case .unexpectedStatus(let url, let status, let contentType):
            return "\(url) answered \(status)\(contentType.map { " (\($0))" } ?? ""): \(Self.advice(status: status, contentType: contentType))"
        case .uploadRefused(let url, let status, let reason):
            return "\(url) refused the upload with \(status): \(reason)"
        case .retriesExhausted(let url, let attempts, let last):
            return "\(url) made no share in \(attempts) attempts; the last: \(last). Try again later with the same idempotency key, "
                + "and check the gateway's log"
        case .unexpectedAnswer(let url, let reason):
            return "\(url) answered the upload with \(reason): check that the URL points at a ShareLog gateway"
        case .notTheShare(let url, let name, let reason):
            return "\(url) did not answer with the events of share \(name) (\(reason)): the server is not a compatible ShareLog gateway, "
                + "or something between rewrote the answer; check the URL"
        }
    }

    /// What to do about an answer of `status`.
    private static func advice(status: Int, contentType: String?) -> String {
        switch status {
        case 200, 404, 410:
            "not \(Representation.eventsMediaType), so this is not a ShareLog gateway's answer; check that the URL points at one (sharelog http)"
        case 300..<400:
            "a redirect, and a clip follows none; give the gateway's own URL"
        case 400:
            "the gateway finds the link damaged; check that the whole link was copied"
        case 406:
            "the server does not serve \(Representation.eventsMediaType); check that the URL points at a ShareLog gateway (sharelog http)"
        case 429:
            "the gateway limits requests from this address; wait a minute and try again"
        case 500..<600:
            "the server has trouble; try again later, and check its log"
        default:
            "a ShareLog gateway answers a share link with 200, 404 or 410; check that the URL points at one (sharelog http)"
        }
    }
}
