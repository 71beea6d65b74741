import Glibc

/// A socket address in the C form `bind`, `connect` and `accept` use.
enum SocketAddress {
    case unix(sockaddr_un)
    case ipv4(sockaddr_in)
    case ipv6(sockaddr_in6)

    /// The longest Unix socket path: `sun_path` less its terminating NUL.
    static let maximumPathBytes = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// The address of a socket endpoint. `stdio` has none.
    init(_ endpoint: Endpoint) throws(TransportError) {
        switch endpoint {
        case .unix(let path):
            guard !path.isEmpty else { throw .endpoint(.emptyPath) }
            guard path.utf8.count <= Self.maximumPathBytes else {
                throw .endpoint(.pathTooLong(path, limit: Self.maximumPathBytes))
            }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                raw.copyBytes(from: path.utf8)
            }
            self = .unix(address)
        case .tcp(let host, let port):
            do { self = try Self.internet(host: host, port: port) } catch { throw .endpoint(error) }
        case .stdio, .command:
            throw .stdioIsNotASocket
        }
    }

    /// An IPv4 or IPv6 literal, or `localhost` (127.0.0.1), with `port`.
    static func internet(host: String, port: UInt16) throws(EndpointError) -> SocketAddress {
        let literal = host == "localhost" ? "127.0.0.1" : host
        var ipv4 = sockaddr_in()
        if inet_pton(AF_INET, literal, &ipv4.sin_addr) == 1 {
            ipv4.sin_family = sa_family_t(AF_INET)
            ipv4.sin_port = port.bigEndian
            return .ipv4(ipv4)
        }
        var ipv6 = sockaddr_in6()
        if inet_pton(AF_INET6, literal, &ipv6.sin6_addr) == 1 {
            ipv6.sin6_family = sa_family_t(AF_INET6)
            ipv6.sin6_port = port.bigEndian
            return .ipv6(ipv6)
        }
        throw .invalidHost(host)
    }

    /// `AF_UNIX`, `AF_INET` or `AF_INET6`.
    var family: Int32 {
        switch self {
        case .unix: AF_UNIX
        case .ipv4: AF_INET
        case .ipv6: AF_INET6
        }
    }

    /// Lends the address to a C call; the pointer is valid only inside `body`.
    func withSockaddr<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        switch self {
        case .unix(var address): Self.lend(&address, body)
        case .ipv4(var address): Self.lend(&address, body)
        case .ipv6(var address): Self.lend(&address, body)
        }
    }

    private static func lend<Address, Result>(
        _ address: inout Address, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result
    ) -> Result {
        withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<Address>.size)) }
        }
    }

    private static func string(_ text: [CChar]) -> String {
        String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `tcp:HOST:PORT` for an IPv4 or IPv6 address that `accept` or
    /// `getsockname` filled in; nil for other families.
    static func endpoint(of storage: sockaddr_storage) -> Endpoint? {
        let family = Int32(storage.ss_family)
        return withUnsafeBytes(of: storage) { raw -> Endpoint? in
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
            switch family {
            case AF_INET:
                var address = raw.loadUnaligned(as: sockaddr_in.self)
                guard inet_ntop(AF_INET, &address.sin_addr, &text, socklen_t(text.count)) != nil else { return nil }
                return .tcp(host: Self.string(text), port: UInt16(bigEndian: address.sin_port))
            case AF_INET6:
                var address = raw.loadUnaligned(as: sockaddr_in6.self)
                guard inet_ntop(AF_INET6, &address.sin6_addr, &text, socklen_t(text.count)) != nil else { return nil }
                return .tcp(host: Self.string(text), port: UInt16(bigEndian: address.sin6_port))
            default:
                return nil
            }
        }
    }
}
