/// A gateway setting that cannot be used; each says what to give instead.
public enum GatewayConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
    case invalidAppID(String, reason: String)
    case invalidAppStoreID(String)

    public var description: String {
        switch self {
        case .invalidAppID(let text, let reason): "app id '\(text)' is not valid: \(reason)"
        case .invalidAppStoreID(let text): "App Store id '\(text)' is not valid: it is the digits of the app's App Store link (id1234567890 → 1234567890)"
        }
    }
}
