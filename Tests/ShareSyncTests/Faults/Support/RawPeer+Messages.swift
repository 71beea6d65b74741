import ShareSync
import TestSupport

extension RawPeer {
    /// The next whole message the server sends, read byte by byte as it
    /// comes; nil when the server closes first. Throws `DeadlineExceeded`
    /// when none has come after `timeout`.
    func receive(timeout: Duration = .seconds(20)) throws -> Message? {
        let deadline = Deadline("the server's next message", timeout: timeout)
        let end = ContinuousClock.now.advanced(by: timeout)
        var buffer = FrameBuffer()
        var byte: [UInt8] = [0]
        while true {
            if let frame = try buffer.nextFrame(using: FrameDecoder()) { return try Message(frame) }
            do {
                let count = try byte.withUnsafeMutableBytes { try channel.read(into: $0, deadline: end) }
                if count == 0 { return nil }
                buffer.append(contentsOf: byte)
            } catch TransportError.peerClosed, TransportError.connectionReset {
                return nil
            } catch TransportError.timedOut {
                try deadline.check()
            }
        }
    }
}
