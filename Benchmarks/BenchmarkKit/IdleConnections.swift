import Foundation
import TestSupport

/// Keep-alive connections that sit idle, for the HTTP workload's memory
/// goal: each connects to 127.0.0.1, asks for one card (`Accept:
/// text/vcard`, keep-alive), reads the whole answer, and then sends nothing
/// until it is closed. The server's RssAnon is read before they open, once
/// all are open, and again after they have idled.
final class IdleConnections {
    /// RssAnon of the server's processes, KiB: before, once every
    /// connection was answered, and after `idle` more of silence.
    struct Memory {
        let beforeKiB: Int
        let openKiB: Int
        let idleKiB: Int
        /// Connections still open after the idle time (not closed by the server).
        let stillOpen: Int

        /// Growth from before to the end of the idle time, MiB.
        var growthMiB: Double { Double(idleKiB - beforeKiB) / 1024 }
        /// Growth while the connections sat idle, MiB.
        var idleGrowthMiB: Double { Double(idleKiB - openKiB) / 1024 }
    }

    /// Opens `count` connections to `port`, each answered once for `path`,
    /// holds them idle for `idle`, and reads the RssAnon of `processes`.
    ///
    /// - Throws: `BenchError.process` when a connection fails or an answer
    ///   is not 200.
    static func measure(port: UInt16, path: String, count: Int, idle: Duration, processes: () -> [pid_t]) throws -> Memory {
        raiseDescriptorLimit(to: count + 256)
        var sockets: [Int32] = []
        defer { sockets.forEach { close($0) } }
        let before = ProcessTree.rssAnonKiB(processes())
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/vcard\r\n\r\n".utf8)
        for _ in 0..<count {
            let socket: Int32
            do { socket = try LoopbackSocket.connect(port: port, timeout: .seconds(10)) } catch {
                throw BenchError.process("idle connection \(sockets.count + 1) of \(count) to port \(port): \(error)")
            }
            sockets.append(socket)
            do { try exchange(request, on: socket, port: port) } catch {
                throw BenchError.process("idle connection \(sockets.count) of \(count): \(error)")
            }
        }
        usleep(200_000)
        let open = ProcessTree.rssAnonKiB(processes())
        Thread.sleep(forTimeInterval: Double(idle.components.seconds) + Double(idle.components.attoseconds) * 1e-18)
        let idled = ProcessTree.rssAnonKiB(processes())
        let stillOpen = sockets.filter { socket in
            var byte: UInt8 = 0
            return recv(socket, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)
        }.count
        return Memory(beforeKiB: before, openKiB: open, idleKiB: idled, stillOpen: stillOpen)
    }

    /// Sends `request` and reads one answer to its end (by its
    /// `Content-Length`), leaving the connection open.
    private static func exchange(_ request: [UInt8], on socket: Int32, port: UInt16) throws {
        var sent = 0
        while sent < request.count {
            let count = request[sent...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw BenchError.process("send to port \(port): \(String(cString: strerror(errno)))") }
            sent += count
        }
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var expected: Int?
        while expected.map({ reply.count < $0 }) ?? true {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                throw BenchError.process("port \(port) \(count == 0 ? "closed the connection" : String(cString: strerror(errno))) "
                    + "after \(reply.count) bytes of its answer")
            }
            reply += buffer[..<count]
            if expected == nil, let end = headerEnd(reply) {
                let head = String(decoding: reply[..<end], as: UTF8.self)
                guard head.hasPrefix("HTTP/1.1 200") else { throw BenchError.process("port \(port) answered \(head.prefix(40))") }
                let length = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) }
                guard let length else { throw BenchError.process("port \(port) answered without Content-Length") }
                expected = end + 4 + length
            }
        }
    }

    private static func headerEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        return (0...(bytes.count - 4)).first { bytes[$0] == 13 && bytes[$0 + 1] == 10 && bytes[$0 + 2] == 13 && bytes[$0 + 3] == 10 }
    }

    private static func raiseDescriptorLimit(to wanted: Int) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < rlim_t(wanted) else { return }
        limit.rlim_cur = min(rlim_t(wanted), limit.rlim_max)
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}
