/// What `ShareStore.revokeToken(named:at:)` did.
public struct TokenRevocation: Hashable, Sendable {
    /// The token as it is stored now; its `revokedAt` is set.
    public let token: StoredToken
    /// True when it had been revoked before: its first `revokedAt` was
    /// kept and nothing was written.
    public let wasAlreadyRevoked: Bool
}
