/// What a bearer token may do through the gateway's write API: a bit set,
/// stored as one byte (bit 0 upload, bit 1 revoke, bit 2 read; the other
/// bits are 0 in every stored token, docs/FORMAT.md "Tokens").
public struct TokenScopes: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// `POST /v1/shares`: make a share.
    public static let upload = TokenScopes(rawValue: 1 << 0)
    /// `DELETE /v1/shares/ID`: end one.
    public static let revoke = TokenScopes(rawValue: 1 << 1)
    /// `GET /v1/shares/ID`: the owner's view of one.
    public static let read = TokenScopes(rawValue: 1 << 2)
    /// Every scope this format defines.
    public static let all: TokenScopes = [.upload, .revoke, .read]

    /// Each scope with its name, in the order names are written.
    public static let named: [(name: String, scope: TokenScopes)] = [("upload", .upload), ("revoke", .revoke), ("read", .read)]

    /// Parses a comma-separated list of scope names (`upload,read`), in any
    /// order, each at most once.
    ///
    /// - Returns: nil for an empty list, an empty or unknown name, or a
    ///   name given twice.
    public init?(names text: some StringProtocol) {
        var scopes: TokenScopes = []
        for name in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let scope = Self.named.first(where: { $0.name == name })?.scope, !scopes.contains(scope) else { return nil }
            scopes.insert(scope)
        }
        guard !scopes.isEmpty else { return nil }
        self = scopes
    }

    /// The names of the scopes held, in `named`'s order.
    public var names: [String] { Self.named.filter { contains($0.scope) }.map(\.name) }

    /// The names joined by commas, as `init(names:)` reads them.
    public var description: String { names.joined(separator: ",") }
}
