/// Why a share expired.
public enum ExpiryReason: UInt8, Hashable, Sendable, CustomStringConvertible {
    /// Its time to live ran out (a sweep noticed).
    case ttl = 1
    /// Its owner ended it early.
    case revoked = 2

    public var description: String {
        switch self {
        case .ttl: "ttl"
        case .revoked: "revoked"
        }
    }
}
