/// Why a configured App Clip domain was refused by ``AppClipDomain/init(_:)``.
///
/// Each case carries the text that was given, so the message can show it back.
public enum AppClipDomainError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The domain is the empty string.
    case empty
    /// The domain starts with a scheme such as `https://`.
    case hasScheme(domain: String)
    /// The domain contains a path, query or fragment (`/`, `?` or `#`).
    case hasPath(domain: String)
    /// The domain names a port (`:`).
    case hasPort(domain: String)
    /// The domain is not a plausible host name; `reason` says which rule it breaks.
    case invalidHostname(domain: String, reason: String)

    public var description: String {
        switch self {
        case .empty:
            "The App Clip domain is empty. Configure a host name such as cards.example.com."
        case .hasScheme(let domain):
            "The App Clip domain \"\(domain)\" includes a scheme. Configure only the host name, such as cards.example.com, without https://."
        case .hasPath(let domain):
            "The App Clip domain \"\(domain)\" includes a path, query or fragment. Configure only the host name, such as cards.example.com; the /appclip path is added by the app."
        case .hasPort(let domain):
            "The App Clip domain \"\(domain)\" includes a port. App Clip links always use the standard https port; remove the \":\" and the number."
        case .invalidHostname(let domain, let reason):
            "The App Clip domain \"\(domain)\" is not a valid host name: \(reason). Configure a host name such as cards.example.com."
        }
    }
}
