import TestSupport
@testable import ShareSync

/// What the bad clients of a `HostileCrowd` need of TLS on the TCP port:
/// a real ClientHello to trickle, a record header that claims too much,
/// and how to read the server's answer to a client that never finished
/// its TLS handshake.
///
/// A client without the handshake's keys can read only the plaintext
/// records' headers: their content types (RFC 8446, 5.1). Nothing but
/// alerts (21) may come back to one that never sent a whole, valid
/// ClientHello; a handshake record (22) would be the server's answer to
/// a hello it should never have taken.
enum HostileTLS {
    static let alert: UInt8 = 21
    static let handshake: UInt8 = 22
    /// The `record_overflow` alert (RFC 8446, 6.2).
    static let recordOverflow: UInt8 = 22

    /// The header of a handshake record that claims 65,535 bytes, over the
    /// 16,384 (plus 256 of expansion) a record may hold; none of it follows.
    static let oversizedRecordHeader: [UInt8] = [handshake, 0x03, 0x01, 0xFF, 0xFF]

    /// A real TLS ClientHello under `key`, as `TLSChannel.client` writes
    /// it: the client connects to a listener of the test's own that never
    /// answers, gives up after 200 ms, and what it sent is read from the
    /// accepted side.
    static func clientHello(under key: SyncKey) throws -> [UInt8] {
        let listener = try Listener(listeningOn: .tcp(host: Endpoint.defaultHost, port: 0))
        defer { listener.close() }
        let socket = try SocketChannel.connect(to: listener.endpoint, deadline: .now + .seconds(5))
        // The kernel holds the client's bytes for the accept below.
        _ = try? TLSChannel.client(over: socket, key: key, deadline: .now + .milliseconds(200))
        let accepted = try listener.accept(deadline: .now + .seconds(5))
        defer { accepted.close() }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4_096)
        let deadline = ContinuousClock.now + .seconds(5)
        while true {
            let count = try chunk.withUnsafeMutableBytes { try accepted.read(into: $0, deadline: deadline) }
            if count == 0 { break }
            bytes += chunk[..<count]
        }
        // One handshake record holding a ClientHello (handshake type 1).
        guard let records = records(in: bytes), records == [handshake], bytes.count > 5, bytes[5] == 1 else {
            throw HarnessFailure.unexpected("the TLS client sent \(bytes.count) bytes that are not one ClientHello record: \(bytes.prefix(16))")
        }
        return bytes
    }

    /// The content types of the whole TLS records in `bytes`, in order;
    /// nil when the bytes do not end at a record's end.
    static func records(in bytes: [UInt8]) -> [UInt8]? {
        var types: [UInt8] = []
        var index = 0
        while index < bytes.count {
            guard index + 5 <= bytes.count else { return nil }
            let length = Int(bytes[index + 3]) << 8 | Int(bytes[index + 4])
            guard index + 5 + length <= bytes.count else { return nil }
            types.append(bytes[index])
            index += 5 + length
        }
        return types
    }

    /// The answer to a client that never finished its TLS handshake,
    /// read to the server's close: refused when it is nothing, or alerts
    /// and nothing else; with `alerting`, exactly one alert of that
    /// description, the server having refused the bytes at once.
    static func judge(_ answer: [UInt8], alerting description: UInt8? = nil) -> HostilePeer.Outcome {
        guard let records = records(in: answer) else { return .admitted("answered \(answer.count) bytes that are not whole TLS records") }
        if records.contains(where: { $0 != alert }) { return .admitted("answered TLS records of types \(records), not only alerts") }
        guard let description else { return .refused }
        // An alert record's body: its level, then its description.
        guard records.count == 1, answer.count == 7, answer[6] == description else {
            return .admitted("answered \(answer), not the one alert \(description)")
        }
        return .refused
    }
}
