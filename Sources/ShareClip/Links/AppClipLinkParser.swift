import Foundation

private typealias Byte = AppClipLinkByte

/// Turns an App Clip invocation link into the ``AppClipExperience`` it asks for.
///
/// The only accepted shape is `https://<domain>/appclip?id=<UUID>` (paths come from the
/// router table, `AppClipRoute.table`), where `<domain>` is exactly one of ``domains``.
/// The parser reads the link's characters itself, following RFC 3986, rather than trusting
/// `URLComponents`, so that Apple platforms and Linux accept and refuse exactly the same links.
///
/// Accepted variations, and why:
/// - Scheme and host in any letter case (`HTTPS://Cards.Example.com`): RFC 3986 and DNS treat
///   them case-insensitively.
/// - An explicit `:443`: it is the https default, so the link reaches the same server as one
///   without a port (RFC 3986 §6.2.3). Any other port, or an empty one, is refused.
/// - One trailing slash on the path (`/appclip/`).
/// - Extra query items (such as campaign tags): ignored.
/// - A percent-encoded `id` name or value: decoded before use.
/// - The UUID in upper- or lowercase; the result is a `Foundation.UUID`, and links the app
///   writes use lowercase (see ``AppClipLinkBuilder``).
///
/// Refused, each with its own ``AppClipLinkError``:
/// - Any whitespace or character a URL cannot contain, anywhere, including leading or
///   trailing spaces: a caller taking typed or pasted input should trim it first.
/// - User info (`https://user@host`), used to disguise where a link leads.
/// - A host that is not exactly a configured domain: no suffix or substring matching, no
///   trailing dot, no percent-encoded host.
/// - A path in another case or percent-encoded (`/AppClip`, `/app%63lip`): paths are
///   case-sensitive and the app never writes them encoded.
/// - Any fragment, even an empty `#`: card links never have one, and a link that does was
///   altered after the app wrote it.
/// - A missing, empty, repeated or non-UUID `id`. The query item name is case-sensitive: only
///   `id` counts, `ID` is an unrelated extra item. `+` is not read as a space.
///
/// Cost: O(length of the link) and a few small allocations. Thread-safe: the parser is immutable.
public struct AppClipLinkParser: Sendable {
    /// The hosts whose links are accepted. An empty set refuses every link.
    public let domains: Set<AppClipDomain>

    public init(domains: Set<AppClipDomain> = [.standard]) {
        self.domains = domains
    }

    /// Parses `url.absoluteString`; see ``parse(_:)-(String)``.
    public func parse(_ url: URL) throws(AppClipLinkError) -> AppClipExperience {
        try parse(url.absoluteString)
    }

    /// Parses a link as text, exactly as given (no trimming).
    /// - Throws: ``AppClipLinkError`` for the first rule the link breaks.
    public func parse(_ link: String) throws(AppClipLinkError) -> AppClipExperience {
        let bytes = Array(link.utf8)
        try Self.checkCharacters(bytes, of: link)
        let schemeEnd = try Self.schemeEnd(in: bytes)
        let authorityStart = schemeEnd + 3
        let authorityEnd = bytes[authorityStart...].firstIndex {
            $0 == Byte.slash || $0 == Byte.question || $0 == Byte.hash
        } ?? bytes.endIndex
        try checkAuthority(bytes[authorityStart..<authorityEnd])
        let pathEnd = bytes[authorityEnd...].firstIndex { $0 == Byte.question || $0 == Byte.hash } ?? bytes.endIndex
        let route = try Self.route(forPath: bytes[authorityEnd..<pathEnd])
        if let hash = bytes[pathEnd...].firstIndex(of: Byte.hash) {
            throw .fragmentPresent(fragment: Self.text(bytes[(hash + 1)...]))
        }
        let query = pathEnd < bytes.endIndex ? bytes[(pathEnd + 1)...] : []
        return route.experience(try Self.recordID(inQuery: query))
    }

    /// Refuses empty text, characters outside RFC 3986's set, and malformed `%` escapes,
    /// so that later steps can assume ASCII and valid escapes.
    static func checkCharacters(_ bytes: [UInt8], of link: String) throws(AppClipLinkError) {
        guard !bytes.isEmpty else { throw .notAURL(reason: "the text is empty") }
        var index = 0
        while index < bytes.count {
            if bytes[index] == Byte.percent {
                guard index + 2 < bytes.count, Byte.isHexDigit(bytes[index + 1]), Byte.isHexDigit(bytes[index + 2]) else {
                    throw .notAURL(reason: "the % at position \(position(ofByte: index, in: link)) is not followed by two hex digits")
                }
                index += 3
                continue
            }
            guard Byte.isURLCharacter(bytes[index]) else {
                let utf8Index = link.utf8.index(link.utf8.startIndex, offsetBy: index)
                let character = AppClipCharacterDescription.describe(Character(link.unicodeScalars[utf8Index]))
                let position = position(ofByte: index, in: link)
                throw .notAURL(reason: "it contains \(character) at position \(position), which a link cannot contain")
            }
            index += 1
        }
    }

    /// The index of the `:` ending an `https` scheme that is followed by `//`.
    private static func schemeEnd(in bytes: [UInt8]) throws(AppClipLinkError) -> Int {
        guard let colon = bytes.firstIndex(of: Byte.colon), colon > 0, Byte.isLetter(bytes[0]),
              bytes[1..<colon].allSatisfy(Byte.isSchemeCharacter) else {
            throw .notAURL(reason: "it does not start with a scheme such as https:")
        }
        let scheme = text(bytes[..<colon])
        guard scheme.lowercased() == "https" else { throw .notHTTPS(scheme: scheme) }
        guard bytes[(colon + 1)...].starts(with: "//".utf8) else {
            throw .notAURL(reason: "\"\(scheme):\" is not followed by //")
        }
        return colon
    }

    /// Checks `[userinfo@]host[:port]`: no user info, port absent or 443, host configured.
    private func checkAuthority(_ authority: ArraySlice<UInt8>) throws(AppClipLinkError) {
        if let at = authority.lastIndex(of: Byte.at) {
            throw .userInfoPresent(userInfo: Self.text(authority[..<at]))
        }
        var host = authority
        if let colon = authority.lastIndex(of: Byte.colon), !authority[colon...].contains(Byte.closingBracket) {
            let port = authority[(colon + 1)...]
            guard port.elementsEqual("443".utf8) else { throw .portPresent(port: Self.text(port)) }
            host = authority[..<colon]
        }
        let hostText = Self.text(host)
        let lowercased = hostText.lowercased()
        guard domains.contains(where: { $0.name == lowercased }) else {
            throw .unknownHost(host: hostText)
        }
    }

    /// The route for the path, allowing one trailing slash.
    static func route(forPath rawPath: ArraySlice<UInt8>) throws(AppClipLinkError) -> AppClipRoute {
        let path = rawPath.count > 1 && rawPath.last == Byte.slash ? rawPath.dropLast() : rawPath
        guard let route = AppClipRoute.route(forPath: text(path)) else {
            throw .unknownPath(path: text(rawPath))
        }
        return route
    }

    /// 1-based position, in Unicode scalars, of the scalar starting at UTF-8 offset `byte`.
    private static func position(ofByte byte: Int, in link: String) -> Int {
        let utf8Index = link.utf8.index(link.utf8.startIndex, offsetBy: byte)
        return link.unicodeScalars.distance(from: link.unicodeScalars.startIndex, to: utf8Index) + 1
    }

    /// Text of bytes already checked to be ASCII.
    static func text(_ bytes: some Collection<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }
}
