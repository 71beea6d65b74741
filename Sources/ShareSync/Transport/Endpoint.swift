/// Where a sync server listens, or a client connects.
///
/// Text forms, as `sharelog serve --listen` and `sharelog sync --connect`
/// take them (`Endpoint(parsing:)`, and `description` gives them back):
/// - `unix:PATH`: a Unix domain socket file, mode 0600 (same user only).
/// - `tcp:HOST:PORT`: TCP, under TLS 1.3 with a pre-shared key. HOST is an
///   IPv4 address, `localhost` (127.0.0.1) or an IPv6 address in brackets
///   (`tcp:[::1]:7070`); names are not resolved. `tcp:PORT` means
///   127.0.0.1. Port 0 listens on a free port.
/// - `stdio`: standard input and output, for `ssh host sharelog serve --stdio`.
/// - `exec:COMMAND` (clients only): runs COMMAND with `/bin/sh -c` and talks
///   to its standard input and output, as in
///   `sharelog sync --connect 'exec:ssh host sharelog serve --stdio'`.
public enum Endpoint: Hashable, Sendable, CustomStringConvertible {
    case unix(path: String)
    case tcp(host: String, port: UInt16)
    case stdio
    /// A command whose standard input and output carry the session.
    case command(String)

    /// The host of `tcp:PORT`: loopback only, unless told otherwise.
    public static let defaultHost = "127.0.0.1"

    /// Parses one of the text forms above.
    public init(parsing text: String) throws(EndpointError) {
        if text == "stdio" {
            self = .stdio
        } else if text.hasPrefix("exec:") {
            let command = String(text.dropFirst("exec:".count))
            guard !command.trimmingPrefix(while: \.isWhitespace).isEmpty, !command.utf8.contains(0) else { throw .unknownForm(text) }
            self = .command(command)
        } else if text.hasPrefix("unix:") {
            let path = String(text.dropFirst("unix:".count))
            guard !path.isEmpty else { throw .emptyPath }
            guard !path.utf8.contains(0) else { throw .unknownForm(text) }
            guard path.utf8.count <= SocketAddress.maximumPathBytes else {
                throw .pathTooLong(path, limit: SocketAddress.maximumPathBytes)
            }
            self = .unix(path: path)
        } else if text.hasPrefix("tcp:") {
            let rest = text.dropFirst("tcp:".count)
            let host: String, port: Substring
            if rest.hasPrefix("[") {
                guard let close = rest.firstIndex(of: "]") else { throw .invalidHost(String(rest)) }
                host = String(rest[rest.index(after: rest.startIndex)..<close])
                let afterHost = rest[rest.index(after: close)...]
                guard afterHost.hasPrefix(":") else { throw .invalidPort(String(afterHost)) }
                port = afterHost.dropFirst()
                guard host.contains(":") else { throw .invalidHost("[\(host)]") }
            } else if let colon = rest.lastIndex(of: ":") {
                host = String(rest[..<colon])
                port = rest[rest.index(after: colon)...]
                guard !host.contains(":") else { throw .invalidHost(host) }
            } else {
                host = Self.defaultHost
                port = rest
            }
            _ = try SocketAddress.internet(host: host, port: 0)
            guard (1...5).contains(port.count), port.allSatisfy(\.isASCII), port.allSatisfy(\.isNumber),
                let number = UInt16(port)
            else { throw .invalidPort(String(port)) }
            self = .tcp(host: host, port: number)
        } else {
            throw .unknownForm(text)
        }
    }

    /// The text form: `unix:PATH`, `tcp:HOST:PORT` (an IPv6 host in
    /// brackets), `stdio`.
    public var description: String {
        switch self {
        case .unix(let path): "unix:\(path)"
        case .tcp(let host, let port): host.contains(":") ? "tcp:[\(host)]:\(port)" : "tcp:\(host):\(port)"
        case .stdio: "stdio"
        case .command(let command): "exec:\(command)"
        }
    }
}
