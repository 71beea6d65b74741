/// The URL a `GatewayClient` fetches one share link from: the link itself,
/// as an App Clip would fetch it, or the link's path and query on another
/// base URL (a staging gateway, a test's).
///
/// Only `http` and `https` URLs, made of the characters a URL may hold,
/// without user info or a fragment. Building one does no I/O.
public struct GatewayURL: Hashable, Sendable, CustomStringConvertible {
    /// The whole URL, as sent.
    public let text: String

    public var description: String { text }

    /// The link itself, exactly as given: `https://cards.example.com/appclip?id=…`.
    ///
    /// - Throws: `GatewayClientError.invalidURL` for text that is not an
    ///   `https` URL (a link is always one), or that holds user info or a
    ///   fragment.
    public init(link: String) throws(GatewayClientError) {
        let parts = try Self.split(link, schemes: ["https"], what: "the link")
        guard !parts.rest.contains("#") else { throw .invalidURL(link, reason: "a link has no fragment (#)") }
        text = link
    }

    /// `base` followed by the link's path and query: with a base of
    /// `https://127.0.0.1:8443`, the link
    /// `https://cards.example.com/appclip?id=…` is fetched from
    /// `https://127.0.0.1:8443/appclip?id=…`. A path in `base` is kept in
    /// front of the link's (`https://staging.example.com/cards` gives
    /// `…/cards/appclip?id=…`); a trailing slash is dropped.
    ///
    /// - Throws: `GatewayClientError.invalidURL` for a base that is not an
    ///   `http` or `https` URL, or that holds user info, a query or a
    ///   fragment; or a link that is not an `https` URL.
    public init(base: String, link: String) throws(GatewayClientError) {
        let prefix = try Self.prefix(base)
        let linked = try Self.split(link, schemes: ["https"], what: "the link")
        var target = Substring(linked.rest)
        if let hash = target.firstIndex(of: "#") { target = target[..<hash] }
        let path = target.hasPrefix("/") ? String(target) : "/" + target
        text = prefix + path
    }

    /// `base` followed by the absolute `path`, for an operator's probe
    /// (`/metrics`, `/healthz` of `--metrics`); a trailing slash of `base`
    /// is dropped.
    ///
    /// - Throws: `GatewayClientError.invalidURL` for a base that is not an
    ///   `http` or `https` URL, or that holds user info, a query or a
    ///   fragment; or a path that does not start with `/`.
    public init(base: String, path: String) throws(GatewayClientError) {
        let prefix = try Self.prefix(base)
        guard path.hasPrefix("/"), path.unicodeScalars.allSatisfy(Self.isURLCharacter) else {
            throw .invalidURL(path, reason: "a path starts with / and holds only the characters a URL may")
        }
        text = prefix + path
    }

    /// `base`, checked as a base URL, without its trailing slashes.
    private static func prefix(_ base: String) throws(GatewayClientError) -> String {
        let root = try split(base, schemes: ["http", "https"], what: "the base URL")
        guard !root.rest.contains("?"), !root.rest.contains("#") else {
            throw .invalidURL(base, reason: "a base URL has no query (?) or fragment (#): give scheme, host, port and at most a path")
        }
        var prefix = base
        while prefix.hasSuffix("/") { prefix.removeLast() }
        return prefix
    }

    /// The scheme (lowercased), the authority, and what follows it (path,
    /// query, fragment) of `url`, once its characters, scheme and
    /// authority are checked.
    private static func split(_ url: String, schemes: Set<String>, what: String) throws(GatewayClientError) -> (scheme: String, authority: String, rest: String) {
        guard !url.isEmpty, url.unicodeScalars.allSatisfy(isURLCharacter) else {
            throw .invalidURL(url, reason: "\(what) holds a character a URL cannot (a space, a control or non-ASCII character)")
        }
        guard let colon = url.firstIndex(of: ":"), url[colon...].hasPrefix("://") else {
            throw .invalidURL(url, reason: "\(what) does not start with \(schemes.sorted().map { $0 + "://" }.joined(separator: " or "))")
        }
        let scheme = url[..<colon].lowercased()
        guard schemes.contains(scheme) else {
            throw .invalidURL(url, reason: "\(what) is \(scheme):, not \(schemes.sorted().joined(separator: ": or ")):")
        }
        let afterScheme = url[url.index(colon, offsetBy: 3)...]
        let end = afterScheme.firstIndex { "/?#".contains($0) } ?? afterScheme.endIndex
        let authority = afterScheme[..<end]
        guard !authority.isEmpty else { throw .invalidURL(url, reason: "\(what) names no host") }
        guard !authority.contains("@") else { throw .invalidURL(url, reason: "\(what) holds user info (user@host), which a share link never needs") }
        return (scheme, String(authority), String(afterScheme[end...]))
    }

    /// Printable ASCII but space, `"`, `<`, `>`, `\`, `^`, `` ` ``, `{`, `|`, `}`.
    private static func isURLCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value > 0x20 && scalar.value < 0x7F && !"\"<>\\^`{|}".unicodeScalars.contains(scalar)
    }
}
