/// Messages over a byte channel: each message goes out as one frame, and
/// frames come in through a bounded `FrameBuffer`, so a peer can never
/// make this side hold more than one frame over the limit's worth of bytes
/// in the buffer, plus `maxQueuedBytes` of decoded messages.
///
/// Sending never stops this side from reading: while the peer has no room
/// for the rest of a frame, `send` reads what the peer sends and queues it
/// for `receive`. Two sides that both send large frames at once therefore
/// never wait on each other, whatever the kernel's buffers hold.
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
    /// Messages decoded and not yet returned by `receive`, in order, each
    /// with its frame's size on the wire.
    private var decoded: [(message: Message, bytes: Int)] = []
    /// The sum of the sizes in `decoded`.
    private var queuedBytes = 0
    /// Whether the peer ended the stream; `receive` says so once the
    /// messages before the end are returned.
    private var peerEnded = false
    private var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)
    /// The most frame bytes (headers included) that may wait in the queue:
    /// two frames at the payload limit, the two batches a peer may have in
    /// flight, and one read's worth of small messages. A peer that follows
    /// the protocol never reaches it; one that sends more while this side
    /// is sending fails the session (`SessionError.peerSentTooMuch`).
    let maxQueuedBytes: Int
    /// Bytes moved, frames included, for the session's summary.
    private(set) var bytesIn = 0
    private(set) var bytesOut = 0

    init(_ channel: any ByteChannel, maxFrameBytes: Int) {
        self.channel = channel
        decoder = FrameDecoder(maxPayloadBytes: maxFrameBytes)
        maxQueuedBytes = 2 * (Frame.headerSize + maxFrameBytes) + readBuffer.count
    }

    /// Sends `message` as one frame: the bytes go out as the channel takes
    /// them, and while it has no room, whatever the peer sends is read and
    /// queued for `receive`. The whole send waits until `deadline`; it
    /// returns once every byte is with the kernel.
    ///
    /// - Throws: `SyncFailure.transport` when the channel fails or the
    ///   deadline passes first; for what arrives meanwhile, the failures
    ///   `receive` throws, and `SessionError.peerSentTooMuch` when it is
    ///   more than `maxQueuedBytes`.
    func send(_ message: Message, deadline: ContinuousClock.Instant?) throws(SyncFailure) {
        let bytes = FrameEncoder.encode(message.frame)
        let sent = bytes.withUnsafeBytes { frame in
            Result { () throws(SyncFailure) in try send(frame, deadline: deadline) }
        }
        try sent.get()
        bytesOut += bytes.count
    }

    private func send(_ frame: UnsafeRawBufferPointer, deadline: ContinuousClock.Instant?) throws(SyncFailure) {
        var offset = 0
        while offset < frame.count || channel.hasPendingOutput {
            let ready: ChannelReady
            do { ready = try channel.waitReady(reading: !peerEnded, writing: true, orWake: nil, deadline: deadline) } catch {
                throw .transport(error)
            }
            guard !ready.isEmpty else { throw .transport(.timedOut(waitingFor: "\(channel) to take the bytes written to it")) }
            if ready.contains(.readable) { try readAvailable(deadline: deadline) }
            if ready.contains(.writable), offset < frame.count {
                do { offset += try channel.writeSome(UnsafeRawBufferPointer(rebasing: frame[offset...]), deadline: deadline) } catch {
                    throw .transport(error)
                }
            }
        }
    }

    /// The next message, or why there is none: the peer was silent until
    /// `deadline`, `wake` was signalled, or the peer closed the stream.
    /// Messages that arrived during a `send` come first, in order.
    ///
    /// - Throws: `SyncFailure` for a frame or message that does not decode,
    ///   and for a transport failure.
    func receive(orWake wake: Int32?, deadline: ContinuousClock.Instant?) throws(SyncFailure) -> Incoming {
        while decoded.isEmpty {
            if peerEnded { return .closed }
            let readiness: ChannelReadiness
            do { readiness = try channel.waitReadable(orWake: wake, deadline: deadline) } catch { throw .transport(error) }
            switch readiness {
            case .woken: return .woken
            case .timedOut: return .timedOut
            // A read into an empty queue brings at most one frame over
            // the limit and a read's worth: never more than the queue holds.
            case .readable: try readAvailable(deadline: deadline)
            }
        }
        let (message, bytes) = decoded.removeFirst()
        queuedBytes -= bytes
        return .message(message)
    }

    /// Reads once (the channel is readable) and queues every frame that
    /// completes; notes the end of the stream. Throws when the queue would
    /// hold more than `maxQueuedBytes`.
    private func readAvailable(deadline: ContinuousClock.Instant?) throws(SyncFailure) {
        do {
            let count = try readBuffer.withUnsafeMutableBytes { buffer throws(TransportError) in try channel.read(into: buffer, deadline: deadline) }
            guard count > 0 else {
                peerEnded = true
                return
            }
            bytesIn += count
            buffer.append(contentsOf: readBuffer[..<count])
            while let frame = try buffer.nextFrame(using: decoder) {
                let size = Frame.headerSize + frame.payload.count
                guard queuedBytes + size <= maxQueuedBytes else {
                    throw SessionError.peerSentTooMuch(bytes: queuedBytes + size, limit: maxQueuedBytes)
                }
                decoded.append((try Message(frame), size))
                queuedBytes += size
            }
        } catch let error as TransportError {
            throw .transport(error)
        } catch let error as FrameError {
            throw .frame(error)
        } catch let error as MessageError {
            throw .message(error)
        } catch let error as SessionError {
            throw .session(error)
        } catch {
            throw .transport(.system(operation: "read", errno: 0))
        }
    }
}
