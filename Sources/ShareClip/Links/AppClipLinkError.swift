/// Why ``AppClipLinkParser`` refused a link.
///
/// Checks run in this order and the first failure is reported: URL syntax, scheme, user info,
/// port, host, path, fragment, then the `id` query item. Each case carries the offending
/// part of the link (as written, before any decoding) so the message can quote it.
public enum AppClipLinkError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text is not a URL at all (empty, no scheme, no `//`, whitespace, characters a URL
    /// cannot contain, or a `%` not followed by two hex digits); `reason` says which.
    case notAURL(reason: String)
    /// The scheme is not `https` (compared case-insensitively).
    case notHTTPS(scheme: String)
    /// The link has user info before the host (`https://user@host/...`), a common way to
    /// disguise where a link leads.
    case userInfoPresent(userInfo: String)
    /// The link names a port other than 443, or an empty port.
    case portPresent(port: String)
    /// The host is not one of the parser's configured domains (exact, case-insensitive match).
    case unknownHost(host: String)
    /// The path names no known experience.
    case unknownPath(path: String)
    /// The link has a `#` fragment.
    case fragmentPresent(fragment: String)
    /// No query item is named `id`.
    case missingID
    /// More than one query item is named `id`; `values` are their raw values in link order.
    case duplicateID(values: [String])
    /// The `id` value (shown raw, before percent-decoding) is empty or not a UUID.
    case malformedID(value: String)

    public var description: String {
        switch self {
        case .notAURL(let reason):
            "This is not a card link: \(reason). Copy the whole link, starting with https://, and try again."
        case .notHTTPS(let scheme):
            "The link uses \"\(scheme):\", but card links always use https:. Ask the sender for the https:// link."
        case .userInfoPresent(let userInfo):
            "The link has \"\(userInfo)@\" before the host, which card links never have and which can hide where a link really leads. Don't open it; ask the sender for the original link."
        case .portPresent(let port):
            "The link names port \"\(port)\", but card links use the standard https port. Remove \":\(port)\" from the link, or ask the sender for the original link."
        case .unknownHost(let host):
            host.isEmpty
                ? "The link has no host. Copy the whole link, such as https://cards.example.com/appclip?id=…, and try again."
                : "The link points at \"\(host)\", which is not a card domain this app opens. Only open card links whose host is exactly one of the app's domains."
        case .unknownPath(let path):
            path.isEmpty
                ? "The link has no path after the host. Card links look like https://cards.example.com/appclip?id=…; check that the whole link was copied."
                : "The link's path \"\(path)\" is not one this app opens (card links use /appclip). Check that the whole link was copied."
        case .fragmentPresent(let fragment):
            "The link ends with \"#\(fragment)\", which card links never have. Remove everything from the # on, or ask the sender for the original link."
        case .missingID:
            "The link does not say which card to show: it has no id=… query item (the name is lowercase \"id\"). Check that the whole link, including the part after ?, was copied."
        case .duplicateID(let values):
            "The link names \(values.count) cards (id= appears \(values.count) times), so it is ambiguous. Ask the sender for the original link."
        case .malformedID(let value):
            value.isEmpty
                ? "The link's id= is empty, so it does not say which card to show. Check that the whole link was copied."
                : "The link's id \"\(value)\" is not a card identifier (a UUID such as 123e4567-e89b-12d3-a456-426614174000). Check that the whole link was copied."
        }
    }
}
