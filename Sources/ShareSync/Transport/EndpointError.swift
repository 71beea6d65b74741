/// Why a text is not an `Endpoint`. Each description quotes the text and
/// lists the accepted forms.
public enum EndpointError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The text starts with none of `unix:`, `tcp:`, `stdio`.
    case unknownForm(String)
    /// `unix:` with no path.
    case emptyPath
    /// A socket path longer than the kernel's limit (`sun_path`).
    case pathTooLong(String, limit: Int)
    /// A host that is not an IPv4 address, `localhost` or a bracketed IPv6
    /// address. Names are not resolved.
    case invalidHost(String)
    /// A port that is not a number from 0 to 65535.
    case invalidPort(String)

    /// The forms `Endpoint(parsing:)` accepts, for messages and help texts.
    public static let acceptedForms =
        "unix:PATH, tcp:HOST:PORT (HOST an IPv4 address, localhost, or an IPv6 address in brackets such as [::1]), "
        + "tcp:PORT (on 127.0.0.1), stdio, or exec:COMMAND (a client talking to COMMAND's standard input and output)"

    public var description: String {
        switch self {
        case .unknownForm(let text):
            "'\(text)' is not an endpoint; use \(Self.acceptedForms)"
        case .emptyPath:
            "'unix:' needs a socket path after it, as in unix:/tmp/sharelog.sock"
        case .pathTooLong(let path, let limit):
            "the socket path \(path) is \(path.utf8.count) bytes long, and the system allows \(limit); use a shorter path"
        case .invalidHost(let host):
            "'\(host)' is not a host ShareLog accepts: use an IPv4 address such as 127.0.0.1, localhost, "
                + "or an IPv6 address in brackets such as [::1]; names are not resolved"
        case .invalidPort(let port):
            "'\(port)' is not a port: use a number from 0 to 65535 (0 listens on a free port)"
        }
    }
}
