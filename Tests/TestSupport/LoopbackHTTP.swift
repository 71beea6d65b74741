import Foundation
import Glibc

/// A tiny HTTP/1.0 client for monitoring endpoints on 127.0.0.1, over a
/// plain blocking TCP socket: one request per connection, `Connection:
/// close`, the body read to end of file.
///
/// HTTP/1.0 on purpose: a server never answers it with chunked encoding, so
/// the body is exactly the bytes after the header block. Not URLSession:
/// its timeouts run on Dispatch timers, which never fire under libfaketime
/// (see `Deadline.wait`).
public enum LoopbackHTTP {
    /// One answer: the status code from the status line and the raw body.
    public struct Response: Sendable {
        public let status: Int
        public let body: [UInt8]

        public var text: String { String(decoding: body, as: UTF8.self) }

        /// The body parsed as one JSON object; nil when it is not one.
        public var jsonObject: [String: Any]? {
            (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
        }
    }

    /// `GET path` from `127.0.0.1:port`. Each send and receive waits at
    /// most `timeout`, so a stopped (SIGSTOP) or wedged server fails the
    /// call instead of hanging it. Throws `LoopbackError`.
    public static func get(port: UInt16, path: String, timeout: Duration = .seconds(2)) throws(LoopbackError) -> Response {
        try exchange(port: port, request: Array("GET \(path) HTTP/1.0\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8), timeout: timeout)
    }

    /// Sends `request`, a whole HTTP/1.0 request as bytes, to
    /// `127.0.0.1:port` on a new connection and reads the answer to end of
    /// file, each send and receive waiting at most `timeout`.
    public static func exchange(port: UInt16, request: [UInt8], timeout: Duration) throws(LoopbackError) -> Response {
        let socket = try LoopbackSocket.connect(port: port, timeout: timeout)
        defer { close(socket) }
        var sent = 0
        while sent < request.count {
            let count = request[sent...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw .io("send to port \(port)", errno) }
            sent += count
        }
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw .io("receive from port \(port)", errno) }
            if count == 0 { break }
            reply.append(contentsOf: buffer[..<count])
        }
        return try parse(reply, port: port)
    }

    /// Splits `HTTP/1.x <status> <reason>\r\n<headers>\r\n\r\n<body>`.
    private static func parse(_ reply: [UInt8], port: UInt16) throws(LoopbackError) -> Response {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        guard let end = reply.indices.first(where: { reply[$0...].starts(with: separator) }) else {
            throw .malformed(port: port, reply: String(decoding: reply, as: UTF8.self))
        }
        let statusLine = String(decoding: reply[..<end], as: UTF8.self).split(separator: "\r\n").first ?? ""
        let fields = statusLine.split(separator: " ")
        guard fields.count >= 2, fields[0].hasPrefix("HTTP/1."), let status = Int(fields[1]) else {
            throw .malformed(port: port, reply: String(decoding: reply, as: UTF8.self))
        }
        return Response(status: status, body: Array(reply[(end + separator.count)...]))
    }
}
