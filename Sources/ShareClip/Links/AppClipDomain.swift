/// A host name that App Clip invocation links may point at, such as `cards.example.com`.
///
/// Invariant: `name` is a plausible DNS host name in lowercase ASCII: 1 to 253 characters,
/// at least two dot-separated labels of 1 to 63 letters, digits or hyphens, no label starting
/// or ending with a hyphen, and a top-level label that is not all digits (so IP addresses are
/// refused). It has no scheme, user info, port, path or trailing dot. Internationalised names
/// must be given in their `xn--` (Punycode) form.
///
/// Host names are compared case-insensitively (DNS is), which is why `name` is stored lowercased.
public struct AppClipDomain: Sendable, Hashable, CustomStringConvertible {
    /// The lowercased host name.
    public let name: String

    /// The domain links point at unless an app configures others: `cards.example.com`.
    public static let standard = AppClipDomain(validatedName: "cards.example.com")

    /// Validates `name` as a bare host name and lowercases it.
    ///
    /// Cost: O(length of `name`).
    /// - Throws: ``AppClipDomainError`` naming the first rule `name` breaks.
    public init(_ name: String) throws(AppClipDomainError) {
        try Self.check(name)
        self.name = name.lowercased()
    }

    /// Wraps a name already known to satisfy the invariant; used for ``standard``.
    private init(validatedName: String) {
        name = validatedName
    }

    public var description: String { name }

    private static func check(_ name: String) throws(AppClipDomainError) {
        guard !name.isEmpty else { throw .empty }
        if name.contains("://") { throw .hasScheme(domain: name) }
        if name.contains(where: { "/?#".contains($0) }) { throw .hasPath(domain: name) }
        if name.contains(":") { throw .hasPort(domain: name) }
        if let bad = name.first(where: { !isHostCharacter($0) }) {
            let character = AppClipCharacterDescription.describe(bad)
            throw .invalidHostname(
                domain: name,
                reason: "it contains \(character), but only letters a-z, digits, hyphens and dots are allowed (write internationalised names in their xn-- form)"
            )
        }
        guard name.utf8.count <= 253 else {
            throw .invalidHostname(domain: name, reason: "it is \(name.utf8.count) characters long; a host name has at most 253")
        }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        for label in labels {
            try checkLabel(label, in: name)
        }
        guard labels.count >= 2 else {
            throw .invalidHostname(domain: name, reason: "it has no dot; use a full domain such as cards.example.com")
        }
        if let last = labels.last, last.allSatisfy(\.isNumber) {
            throw .invalidHostname(domain: name, reason: "it looks like an IP address; App Clip links need a domain name")
        }
    }

    private static func checkLabel(_ label: Substring, in name: String) throws(AppClipDomainError) {
        guard !label.isEmpty else {
            throw .invalidHostname(domain: name, reason: "it has an empty label (a leading or trailing dot, or two dots in a row)")
        }
        guard label.utf8.count <= 63 else {
            throw .invalidHostname(domain: name, reason: "the label \"\(label)\" is longer than 63 characters")
        }
        if label.hasPrefix("-") || label.hasSuffix("-") {
            throw .invalidHostname(domain: name, reason: "the label \"\(label)\" starts or ends with a hyphen")
        }
    }

    private static func isHostCharacter(_ character: Character) -> Bool {
        guard character.isASCII else { return false }
        return character.isLetter || character.isNumber || character == "-" || character == "."
    }
}
