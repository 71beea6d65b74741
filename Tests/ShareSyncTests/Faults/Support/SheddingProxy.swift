import Foundation
import Synchronization

/// A Unix socket in front of a server that closes the first `shed`
/// connections it accepts without reading a byte, as a server's full
/// vestibule drops an arrival before its handshake ends, and passes the
/// bytes of every later one through to `target`, both ways.
final class SheddingProxy: @unchecked Sendable {
    // @unchecked Sendable: `listener` and `path` are set in init and only
    // read afterwards; `accepted` is atomic.
    let path: String
    private let listener: Int32
    private let accepted = Atomic<Int>(0)

    /// Connections accepted so far, shed ones included.
    var connections: Int { accepted.load(ordering: .acquiring) }

    init(path: String, target: String, shed: Int) throws {
        self.path = path
        listener = try Self.socket(at: path) { fd, address, length in bind(fd, address, length) == 0 && listen(fd, 16) == 0 }
        let listener = self.listener
        // Holds `self` until `stop()` ends the accept loop.
        Thread { [self] in
            while true {
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { return }  // stopped
                if self.accepted.add(1, ordering: .acquiringAndReleasing).newValue <= shed {
                    close(connection)
                    continue
                }
                guard let upstream = try? Self.socket(at: target, { fd, address, length in connect(fd, address, length) == 0 }) else {
                    close(connection)
                    continue
                }
                Self.pump(from: connection, to: upstream)
                Self.pump(from: upstream, to: connection)
            }
        }.start()
    }

    /// Stops accepting; connections already passed through run on until
    /// their ends close.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    /// Copies what `source` sends to `destination` on a thread of its own,
    /// until `source` ends; then ends `destination`'s writing side and
    /// closes `source` for reading.
    private static func pump(from source: Int32, to destination: Int32) {
        Thread {
            var buffer = [UInt8](repeating: 0, count: 16_384)
            copying: while true {
                let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                var offset = 0
                while offset < count {
                    let written = buffer.withUnsafeBytes { send(destination, $0.baseAddress! + offset, count - offset, Int32(MSG_NOSIGNAL)) }
                    if written < 0, errno == EINTR { continue }
                    guard written > 0 else { break copying }
                    offset += written
                }
            }
            shutdown(destination, Int32(SHUT_WR))
            shutdown(source, Int32(SHUT_RD))
        }.start()
    }

    private struct SocketFailed: Error { let errno: Int32 }

    /// A Unix stream socket that `body` binds or connects to `path`.
    private static func socket(
        at path: String, _ body: (Int32, UnsafePointer<sockaddr>, socklen_t) -> Bool
    ) throws -> Int32 {
        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SocketFailed(errno: errno) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        let done = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard done else {
            let code = errno
            close(fd)
            throw SocketFailed(errno: code)
        }
        return fd
    }
}
