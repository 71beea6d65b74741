private typealias Byte = AppClipLinkByte

extension AppClipLinkParser {
    /// Parses an HTTP request target in origin form (RFC 9112 §3.2.1),
    /// `/appclip?id=<UUID>`: what a server receives for a link. The rules
    /// for the characters, the path and the `id` are those of
    /// ``parse(_:)-(String)``; there is no scheme, host or fragment to check.
    ///
    /// Cost: O(length of the target). Needs no configured domain.
    /// - Throws: ``AppClipLinkError`` for the first rule the target breaks.
    public static func parse(target: String) throws(AppClipLinkError) -> AppClipExperience {
        let bytes = Array(target.utf8)
        try checkCharacters(bytes, of: target)
        guard bytes.first == Byte.slash else { throw .notAURL(reason: "a request target starts with /") }
        let pathEnd = bytes.firstIndex { $0 == Byte.question || $0 == Byte.hash } ?? bytes.endIndex
        let route = try route(forPath: bytes[..<pathEnd])
        if let hash = bytes[pathEnd...].firstIndex(of: Byte.hash) {
            throw .fragmentPresent(fragment: text(bytes[(hash + 1)...]))
        }
        let query = pathEnd < bytes.endIndex ? bytes[(pathEnd + 1)...] : []
        return route.experience(try recordID(inQuery: query))
    }
}
