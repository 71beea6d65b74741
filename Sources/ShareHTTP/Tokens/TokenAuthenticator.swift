import Foundation
import ShareLog

/// Decides whether a request's `Authorization` header carries a bearer
/// token of the store, and whether the token may do what the request asks
/// (docs/HTTP.md "Tokens").
///
/// Each call reads the token from the store (one read transaction,
/// O(log tokens)), so a token revoked by any process is refused from the
/// next request on, without a restart. It writes nothing: a route that
/// accepts a request records the use with `ShareStore.markTokenUsed`.
public struct TokenAuthenticator: Sendable {
    public let store: ShareStore

    public init(store: ShareStore) { self.store = store }

    /// Authenticates `authorization`, the header's value (nil when the
    /// request has none), at `time`, for a request that needs `scope`.
    ///
    /// The header is `Bearer`, in any case, then one or more spaces and the
    /// token's text; spaces and tabs around the whole are ignored. The
    /// secret is checked (`BearerToken.matches`, constant time) before
    /// anything about the stored token is told: a wrong secret for a
    /// revoked token's id is `unknown`, not `revoked`.
    ///
    /// - Throws: what `ShareStore.token(id:)` throws (a damaged entry, a
    ///   storage failure).
    public func authenticate(
        authorization: String?, requiring scope: TokenScopes, at time: Timestamp
    ) throws(ShareLogError) -> TokenAuthentication {
        let value = (authorization ?? "").trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
        guard !value.isEmpty else { return .missing }
        guard let presented = Self.token(in: value) else { return .malformed }
        guard let stored = try store.token(id: presented.id), presented.matches(stored) else { return .unknown }
        if stored.revokedAt != nil { return .revoked(stored) }
        if stored.isExpired(at: time) { return .expired(stored) }
        return stored.scopes.isSuperset(of: scope) ? .accepted(stored) : .outOfScope(stored)
    }

    /// The token in `Bearer TOKEN`, or nil.
    private static func token(in value: String) -> BearerToken? {
        let scheme = value.prefix { $0 != " " }
        guard scheme.lowercased() == "bearer" else { return nil }
        let text = value.dropFirst(scheme.count).drop { $0 == " " }
        guard text.count < value.count - scheme.count else { return nil }
        return try? BearerToken(parsing: text)
    }
}
