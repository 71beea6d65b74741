import Glibc
import ShareSync
import TestSupport

/// A relay of the test's own between a clip and a sync server, on Unix
/// sockets: it listens at `path`, and for each connection a clip makes
/// there it connects to the server and forwards the bytes both ways as
/// they come, keeping a copy of each direction. The copies are decoded
/// with ShareSync's `FrameBuffer`, `FrameDecoder` and `Message`
/// (`RawPeer.messages(in:)`), so a test can count the frames of a session.
///
/// Plain non-blocking sockets and `poll`, on the test's thread, every wait
/// under the relay's deadline: the relay runs while the clip process it
/// serves runs (`relay(to:while:)`).
final class FrameRelay {
    /// What went through one connection, each direction in order.
    struct Connection {
        var fromClient: [UInt8] = []
        var fromServer: [UInt8] = []

        /// The messages the clip sent, decoded.
        func clientMessages() throws -> [Message] { try RawPeer.messages(in: fromClient) }
        /// The messages the server sent, decoded.
        func serverMessages() throws -> [Message] { try RawPeer.messages(in: fromServer) }
    }

    /// Where clips connect: pass `unix:path` as `--connect`.
    let path: String
    private let listener: Int32
    /// The most bytes passed from the server to the client per 10 ms tick:
    /// a slow link (1,024 is at most 100 KB/s). `nil`: as fast as it goes.
    private let serverBytesPerTick: Int?

    /// Listens at `path`, a Unix socket path of at most 107 bytes.
    init(at path: String, serverBytesPerTick: Int? = nil) throws {
        self.path = path
        self.serverBytesPerTick = serverBytesPerTick
        listener = try Self.socket()
        do {
            try Self.withAddress(path) { address, length in
                guard bind(listener, address, length) == 0 else { throw Self.failure("bind \(path)") }
            }
            guard listen(listener, 8) == 0 else { throw Self.failure("listen on \(path)") }
        } catch {
            close(listener)
            throw error
        }
    }

    deinit {
        close(listener)
        unlink(path)
    }

    /// Relays every connection made to `path`, one after the other, to the
    /// server at `serverPath`, until `process` (the clip) has ended and no
    /// connection is waiting; returns them in order. Throws
    /// `DeadlineExceeded` when that takes longer than `timeout`.
    func relay(to serverPath: String, while process: Subprocess, timeout: Duration = .seconds(60)) throws -> [Connection] {
        try relay(to: serverPath, while: { process.isRunning }, timeout: timeout)
    }

    /// Relays as above until `isRunning` (the client) answers false and no
    /// connection is waiting.
    func relay(to serverPath: String, while isRunning: () -> Bool, timeout: Duration = .seconds(60)) throws -> [Connection] {
        let deadline = Deadline("the client's connections through the relay end", timeout: timeout)
        var connections: [Connection] = []
        while true {
            try deadline.check()
            if try waitForConnection(milliseconds: 10) {
                connections.append(try relayOne(to: serverPath, deadline: deadline))
            } else if !isRunning() {
                // A connection made just before the clip ended still waits in the backlog.
                guard try waitForConnection(milliseconds: 0) else { return connections }
            }
        }
    }

    /// Whether a connection waits to be accepted, within `milliseconds`.
    private func waitForConnection(milliseconds: Int32) throws -> Bool {
        var watched = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        let ready = poll(&watched, 1, milliseconds)
        guard ready >= 0 || errno == EINTR else { throw Self.failure("poll on \(path)") }
        return ready > 0
    }

    /// Accepts one connection, connects to the server, and forwards both
    /// ways until each side has closed its end.
    private func relayOne(to serverPath: String, deadline: Deadline) throws -> Connection {
        let client = systemAccept4(listener, nil, nil, Int32(SOCK_CLOEXEC.rawValue))
        guard client >= 0 else { throw Self.failure("accept on \(path)") }
        defer { close(client) }
        let server = try Self.socket()
        defer { close(server) }
        // A Unix socket connects at once, or fails: nothing to wait for.
        try Self.withAddress(serverPath) { address, length in
            guard connect(server, address, length) == 0 else { throw Self.failure("connect to \(serverPath)") }
        }
        for descriptor in [client, server] { _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK) }
        var connection = Connection()
        var open: [Int32: Int32] = [client: server, server: client]
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while !open.isEmpty {
            try deadline.check()
            var watched = open.keys.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard poll(&watched, nfds_t(watched.count), 10) >= 0 || errno == EINTR else { throw Self.failure("poll") }
            for entry in watched where entry.revents != 0 {
                guard let destination = open[entry.fd] else { continue }
                let limit = entry.fd == server ? min(serverBytesPerTick ?? buffer.count, buffer.count) : buffer.count
                let count = buffer.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress, limit) }
                if count > 0 {
                    let bytes = Array(buffer[..<count])
                    if entry.fd == client { connection.fromClient += bytes } else { connection.fromServer += bytes }
                    try Self.writeAll(bytes, to: destination, deadline: deadline)
                    if entry.fd == server, serverBytesPerTick != nil { usleep(10_000) }
                } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                    // This side is done: pass its end of stream on.
                    shutdown(destination, Int32(SHUT_WR))
                    open[entry.fd] = nil
                }
            }
        }
        return connection
    }

    /// Sends all of `bytes`, waiting for room until `deadline`.
    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32, deadline: Deadline) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent >= 0 {
                offset += sent
                continue
            }
            switch errno {
            // The other side is gone; what it missed is its own loss, not the relay's.
            case EPIPE, ECONNRESET: return
            case EINTR: continue
            case EAGAIN:
                try deadline.check()
                var watched = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                _ = poll(&watched, 1, 10)
            default: throw failure("send")
            }
        }
    }

    /// A Unix stream socket, closed on exec so no spawned process holds it.
    private static func socket() throws -> Int32 {
        let descriptor = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw failure("socket") }
        return descriptor
    }

    /// Calls `body` with the `sockaddr_un` of `path` and its length.
    private static func withAddress(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) throws -> Void) throws {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw HarnessFailure.unexpected("the socket path \(path) is longer than a Unix socket path may be")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        try withUnsafePointer(to: &address) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { try body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }

    private static func failure(_ call: String) -> HarnessFailure {
        .unexpected("the frame relay's \(call) failed: \(String(cString: strerror(errno)))")
    }
}

/// glibc's `accept4(2)`, which the Glibc module does not export (it needs
/// `_GNU_SOURCE`), so an accepted socket is closed on exec from the start.
/// The C signature is `int accept4(int, struct sockaddr *, socklen_t *, int)`.
@_silgen_name("accept4")
private func systemAccept4(
    _ descriptor: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: UnsafeMutablePointer<socklen_t>?, _ flags: Int32
) -> Int32
