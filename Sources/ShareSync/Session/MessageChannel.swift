import SharePrimitives

/// Messages over a byte channel: each message goes out as one frame, and
/// frames come in through a bounded `FrameBuffer`, so a peer can never
/// make this side hold more than one frame over the limit's worth of bytes.
///
/// Not `Sendable`: like its channel (`ByteChannel`'s contract), it belongs
/// to one thread at a time. The server's accept thread runs the handshake
/// on it and then hands it, `sending`, to the session's thread, which
/// adopts it (`adoptOnCurrentThread()`); debug builds check every call.
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
    private var decoder: FrameDecoder
    private var buffer = FrameBuffer()
    /// Where reads land: no larger than the largest frame allowed now (a
    /// handshake's few hundred bytes), and at most 64 KiB.
    private var readBuffer: [UInt8] = []
    /// Bytes moved, frames included, for the session's summary.
    private(set) var bytesIn = 0
    private(set) var bytesOut = 0
    /// The thread that may use the channel.
    private var owner = OwningThread()

    convenience init(_ channel: any ByteChannel, maxFrameBytes: Int) {
        self.init(channel, limits: .all(upTo: maxFrameBytes))
    }

    init(_ channel: any ByteChannel, limits: FrameLimits) {
        self.channel = channel
        decoder = FrameDecoder(limits: limits)
    }

    /// Makes the calling thread the owner of this channel and of the byte
    /// channel under it: call it on the thread it was handed to.
    func adoptOnCurrentThread() {
        owner.adoptCurrent()
        channel.adoptOnCurrentThread()
    }

    /// The frames accepted from now on, from the next one taken.
    var limits: FrameLimits {
        get { decoder.limits }
        set {
            owner.check(channel.description)
            decoder.limits = newValue
        }
    }

    /// Sends `message`, waiting for a slow reader until `deadline`.
    func send(_ message: Message, deadline: ContinuousClock.Instant?) throws(TransportError) {
        owner.check(channel.description)
        let bytes = FrameEncoder.encode(message.frame)
        try channel.write(bytes, deadline: deadline)
        bytesOut += bytes.count
    }

    /// Sends `message` in pieces of `stallPiece` bytes, waiting for a slow
    /// reader up to `stallTimeout` for each piece: a reader that takes a
    /// piece in time keeps the send going however long the whole frame
    /// takes, and one that stops taking bytes fails the send within
    /// `stallTimeout`.
    ///
    /// While the peer has no room, the channel keeps what the peer sends,
    /// up to `readAheadBytes`, for `receive` to take after: a peer that is
    /// itself writing a batch to this side can finish it and go back to
    /// reading, so two sides that write at once never wait on each other.
    func send(_ message: Message, stallTimeout: Duration) throws(TransportError) {
        owner.check(channel.description)
        let bytes = FrameEncoder.encode(message.frame)
        var offset = 0
        repeat {
            let end = min(offset + Self.stallPiece, bytes.count)
            let failure = bytes.withUnsafeBytes { all -> TransportError? in
                do throws(TransportError) {
                    try channel.write(UnsafeRawBufferPointer(rebasing: all[offset..<end]), deadline: .now + stallTimeout, readingAhead: readAheadBytes)
                } catch { return error }
                return nil
            }
            if let failure { throw failure }
            bytesOut += end - offset
            offset = end
        } while offset < bytes.count
    }

    /// The most of the peer's bytes a send keeps while it waits for room:
    /// two of the largest frames allowed now, what a peer that keeps to
    /// the protocol writes before it reads (a sender's window is two
    /// batches; acks and heartbeats are a few bytes), and one read more.
    /// About 8 MiB in a main's session by default; about 66 KiB in a
    /// clip's, whose frames are small fetches.
    var readAheadBytes: Int { 2 * (Frame.headerSize + decoder.maxPayloadBytes) + Self.readBytes }

    /// The bytes a slow reader must take within a write's stall timeout:
    /// 64 KiB, so the default 30 s allows a link down to about 2 KB/s.
    static let stallPiece = 64 * 1024

    /// The most bytes one read takes.
    static let readBytes = 64 * 1024

    /// The next message, or why there is none: the peer was silent until
    /// `deadline`, `wake` was signalled, or the peer closed the stream.
    ///
    /// - Throws: `SyncFailure` for a frame or message that does not decode,
    ///   and for a transport failure.
    func receive(orWake wake: Int32?, deadline: ContinuousClock.Instant?) throws(SyncFailure) -> Incoming {
        owner.check(channel.description)
        while true {
            // One frame at a time, each checked against the limits in
            // force when it is taken: a frame that came early behind
            // another (a batch behind a proof) meets the limits the
            // first one leads to, not those it arrived under.
            let frame: Frame?
            do { frame = try buffer.nextFrame(using: decoder) } catch { throw .frame(error) }
            if let frame {
                do { return .message(try Message(frame)) } catch { throw .message(error) }
            }
            do throws(TransportError) {
                switch try channel.waitReadable(orWake: wake, deadline: deadline) {
                case .woken: return .woken
                case .timedOut: return .timedOut
                case .readable: break
                }
                let wanted = min(Self.readBytes, Frame.headerSize + decoder.maxPayloadBytes)
                if readBuffer.count != wanted { readBuffer = Array(repeating: 0, count: wanted) }
                let count: Int
                let read = readBuffer.withUnsafeMutableBytes { buffer in
                    Result { () throws(TransportError) in try channel.read(into: buffer, deadline: deadline) }
                }
                switch read {
                case .success(let read): count = read
                case .failure(.timedOut):
                    // Readable, yet the read waited out the deadline: part of
                    // a TLS record had come, and its rest had not by the
                    // deadline (on a slow link, often a mere heartbeat tick).
                    // The part stays buffered; the deadline passed like any other.
                    return .timedOut
                case .failure(let error): throw error
                }
                guard count > 0 else { return .closed }
                bytesIn += count
                buffer.append(contentsOf: readBuffer[..<count])
            } catch {
                throw .transport(error)
            }
        }
    }
}
