import Glibc

/// TCP sockets on 127.0.0.1 for test harnesses: picking free ports,
/// connecting with a timeout, and asking whether a port refuses connections.
public enum LoopbackSocket {
    /// `count` distinct ports that were free on 127.0.0.1 a moment ago.
    ///
    /// Each comes from binding a socket to 127.0.0.1:0 and reading back the
    /// port the kernel chose. All sockets stay bound until every port is
    /// picked, so the ports are distinct; then all are closed (never
    /// listened on or connected, so none lingers in TIME_WAIT). Nothing
    /// reserves them afterwards: a caller must detect a port another process
    /// took meanwhile (see `NatsCluster`).
    public static func freePorts(_ count: Int) throws(LoopbackError) -> [UInt16] {
        var sockets: [Int32] = []
        defer { sockets.forEach { close($0) } }
        var ports: [UInt16] = []
        for _ in 0..<count {
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard socket >= 0 else { throw .io("socket", errno) }
            sockets.append(socket)
            var address = loopback(port: 0)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else { throw .io("bind 127.0.0.1:0", errno) }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let named = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
            }
            guard named == 0 else { throw .io("getsockname", errno) }
            ports.append(UInt16(bigEndian: address.sin_port))
        }
        return ports
    }

    /// A connected, blocking socket to 127.0.0.1:`port` whose sends and
    /// receives time out after `timeout`. The caller closes it.
    /// Throws `.refused` when nothing listens on the port.
    public static func connect(port: UInt16, timeout: Duration) throws(LoopbackError) -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { throw .io("socket", errno) }
        var limit = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: Int(timeout.components.attoseconds / 1_000_000_000_000))
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = loopback(port: port)
        var connected: Int32
        repeat {
            connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        } while connected != 0 && errno == EINTR
        guard connected == 0 else {
            let code = errno
            close(socket)
            throw code == ECONNREFUSED ? .refused(port: port) : .io("connect to 127.0.0.1:\(port)", code)
        }
        return socket
    }

    /// True when a TCP connect to 127.0.0.1:`port` fails with ECONNREFUSED
    /// (nothing listens there); false when it connects or fails otherwise.
    public static func refusesConnections(port: UInt16) -> Bool {
        do {
            close(try connect(port: port, timeout: .seconds(2)))
            return false
        } catch {
            return error == .refused(port: port)
        }
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}
