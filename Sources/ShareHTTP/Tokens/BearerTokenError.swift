/// Why a text is not a bearer token (`BearerToken(parsing:)`).
public enum BearerTokenError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not 64 characters.
    case wrongLength(Int)
    /// Does not start `slt_`, or lacks the `_` after the id.
    case wrongPrefix
    /// The id is not 16 lowercase hexadecimal digits.
    case malformedID
    /// The secret is not 43 base64url characters encoding 32 bytes.
    case malformedSecret

    public var description: String {
        let form = "a token is slt_, 16 lowercase hex digits, _ and 43 base64url characters, as 'sharelog token create' printed it"
        return switch self {
        case .wrongLength(let count): "not a token: \(count) characters, not 64; \(form)"
        case .wrongPrefix: "not a token: it does not start slt_ and a 16-digit id followed by _; \(form)"
        case .malformedID: "not a token: its id is not 16 lowercase hex digits; \(form)"
        case .malformedSecret: "not a token: its secret is not 43 base64url characters; \(form)"
        }
    }
}
