import ShareSync
import TestSupport

/// A hand-driven client connection to a sync server: whatever bytes a test
/// writes go out as they are (inside TLS when it has a key), and whatever
/// the server answers is read until it closes.
final class RawPeer {
    let channel: any ByteChannel

    /// Connects to `endpoint`; over TCP, with `key`, it shakes hands in TLS
    /// first, and without a key it stays plain TCP.
    init(_ endpoint: Endpoint, key: SyncKey? = nil) throws {
        let deadline = ContinuousClock.now.advanced(by: .seconds(20))
        let socket = try SocketChannel.connect(to: endpoint, deadline: deadline)
        if let key {
            channel = try TLSChannel.client(over: socket, key: key, deadline: deadline)
        } else {
            channel = socket
        }
    }

    deinit { channel.close() }

    func send(_ bytes: [UInt8]) throws {
        try channel.write(bytes, deadline: ContinuousClock.now.advanced(by: .seconds(20)))
    }

    /// Every byte the server sends until it closes the connection. Throws
    /// `DeadlineExceeded` when it is still open after `timeout`.
    func readUntilClosed(timeout: Duration = .seconds(30)) throws -> [UInt8] {
        let deadline = Deadline("the server closes the connection", timeout: timeout)
        let end = ContinuousClock.now.advanced(by: timeout)
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            do {
                let count = try chunk.withUnsafeMutableBytes { buffer in try channel.read(into: buffer, deadline: end) }
                if count == 0 { return bytes }
                bytes += chunk[..<count]
            } catch TransportError.peerClosed, TransportError.connectionReset {
                return bytes
            } catch TransportError.timedOut {
                try deadline.check()
            }
        }
    }

    /// The messages in `bytes`, in order, decoded by ShareSync's decoders.
    static func messages(in bytes: [UInt8]) throws -> [Message] {
        var buffer = FrameBuffer()
        buffer.append(contentsOf: bytes)
        var messages: [Message] = []
        while let frame = try buffer.nextFrame(using: FrameDecoder()) { messages.append(try Message(frame)) }
        return messages
    }

    /// Closes this side.
    func close() { channel.close() }
}
