import ShareLog

/// What `TokenAuthenticator` made of a request's `Authorization` header.
/// A gateway answers 401 with `WWW-Authenticate: Bearer` for every case
/// but `accepted` and `outOfScope`, and 403 for `outOfScope` (issue 32).
public enum TokenAuthentication: Equatable, Sendable {
    /// A token of this store, not revoked, not expired, with the scope asked for.
    case accepted(StoredToken)
    /// No `Authorization` header, or an empty one.
    case missing
    /// A header that is not `Bearer` and a token's text (`BearerTokenError`).
    case malformed
    /// A well-formed token that no stored token matches: an unknown id, or
    /// a known id with another secret (the two are not told apart).
    case unknown
    /// The stored token it matches was revoked.
    case revoked(StoredToken)
    /// The stored token it matches expired at or before the request's time.
    case expired(StoredToken)
    /// A valid token without the scope the request needs.
    case outOfScope(StoredToken)
}
