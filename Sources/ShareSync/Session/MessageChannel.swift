/// Messages over a byte channel: each message goes out as one frame, and
/// frames come in through a bounded `FrameBuffer`, so a peer can never
/// make this side hold more than one frame over the limit's worth of bytes.
///
/// Used by one session thread at a time, like its channel.
final class MessageChannel {
    /// What a wait for the peer ended with.
    enum Incoming: Equatable {
        case message(Message)
        /// The wake-up descriptor was signalled.
        case woken
        case timedOut
        /// The peer closed the stream.
        case closed
    }

    let channel: any ByteChannel
    private let decoder: FrameDecoder
    private var buffer = FrameBuffer()
    private var decoded: [Message] = []
    private var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)
    /// Bytes moved, frames included, for the session's summary.
    private(set) var bytesIn = 0
    private(set) var bytesOut = 0

    init(_ channel: any ByteChannel, maxFrameBytes: Int) {
        self.channel = channel
        decoder = FrameDecoder(maxPayloadBytes: maxFrameBytes)
    }

    /// Sends `message`, waiting for a slow reader until `deadline`.
    func send(_ message: Message, deadline: ContinuousClock.Instant?) throws(TransportError) {
        let bytes = FrameEncoder.encode(message.frame)
        try channel.write(bytes, deadline: deadline)
        bytesOut += bytes.count
    }

    /// Sends `message` in pieces of `stallPiece` bytes, waiting for a slow
    /// reader up to `stallTimeout` for each piece: a reader that takes a
    /// piece in time keeps the send going however long the whole frame
    /// takes, and one that stops taking bytes fails the send within
    /// `stallTimeout`.
    func send(_ message: Message, stallTimeout: Duration) throws(TransportError) {
        let bytes = FrameEncoder.encode(message.frame)
        var offset = 0
        repeat {
            let end = min(offset + Self.stallPiece, bytes.count)
            let failure = bytes.withUnsafeBytes { all -> TransportError? in
                do throws(TransportError) { try channel.write(UnsafeRawBufferPointer(rebasing: all[offset..<end]), deadline: .now + stallTimeout) } catch { return error }
                return nil
            }
            if let failure { throw failure }
            bytesOut += end - offset
            offset = end
        } while offset < bytes.count
    }

    /// The bytes a slow reader must take within a write's stall timeout:
    /// 64 KiB, so the default 30 s allows a link down to about 2 KB/s.
    static let stallPiece = 64 * 1024

    /// The next message, or why there is none: the peer was silent until
    /// `deadline`, `wake` was signalled, or the peer closed the stream.
    ///
    /// - Throws: `SyncFailure` for a frame or message that does not decode,
    ///   and for a transport failure.
    func receive(orWake wake: Int32?, deadline: ContinuousClock.Instant?) throws(SyncFailure) -> Incoming {
        while decoded.isEmpty {
            do {
                switch try channel.waitReadable(orWake: wake, deadline: deadline) {
                case .woken: return .woken
                case .timedOut: return .timedOut
                case .readable: break
                }
                let count: Int
                do {
                    count = try readBuffer.withUnsafeMutableBytes { buffer throws(TransportError) in try channel.read(into: buffer, deadline: deadline) }
                } catch TransportError.timedOut {
                    // Readable, yet the read waited out the deadline: part of
                    // a TLS record had come, and its rest had not by the
                    // deadline (on a slow link, often a mere heartbeat tick).
                    // The part stays buffered; the deadline passed like any other.
                    return .timedOut
                }
                guard count > 0 else { return .closed }
                bytesIn += count
                buffer.append(contentsOf: readBuffer[..<count])
                while let frame = try buffer.nextFrame(using: decoder) { decoded.append(try Message(frame)) }
            } catch let error as TransportError {
                throw .transport(error)
            } catch let error as FrameError {
                throw .frame(error)
            } catch let error as MessageError {
                throw .message(error)
            } catch {
                throw .transport(.system(operation: "read", errno: 0))
            }
        }
        return .message(decoded.removeFirst())
    }
}
