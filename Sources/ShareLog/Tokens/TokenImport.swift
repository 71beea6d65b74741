/// What `ShareStore.importToken(_:)` did.
public struct TokenImport: Hashable, Sendable {
    /// The token as it is stored now: the one given, or, when it was
    /// already installed, the one stored before, with its own scopes and
    /// times.
    public let token: StoredToken
    /// True when the same token (id, hash and name) was already installed:
    /// nothing was written.
    public let wasAlreadyInstalled: Bool
}
