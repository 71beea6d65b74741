@testable import ShareSync

/// An in-memory `ByteChannel` for the `exchange` fuzz target. What the
/// session reads comes from `nextRead`, asked only when the bytes before are
/// used up, so a scripted peer can answer what the session wrote; `nil`
/// ends the stream. What the session writes is decoded into `written`.
/// What it was given is decoded too (`delivered`, up to the first bad
/// frame), for the target's checks.
///
/// Not `Sendable`: like every channel it belongs to one thread
/// (`ByteChannel`'s contract), here the fuzz target's only thread, so it
/// never changes hands and adopting is nothing to do.
final class ScriptedChannel: ByteChannel {
    /// The next read's bytes; nil for the end of the stream.
    var nextRead: () -> [UInt8]? = { nil }
    private var pending: ArraySlice<UInt8> = []
    private var closed = false
    private var out = FrameBuffer()
    private var inbound = FrameBuffer()
    private let decoder = FrameDecoder(maxPayloadBytes: Int(UInt32.max))
    /// The messages the session wrote, in order.
    private(set) var written: [Message] = []
    /// Set when the session wrote bytes that are not a message.
    private(set) var badOutput: String?
    /// The messages the session was given, up to the first that does not decode.
    private(set) var delivered: [Message] = []
    private var deliveredEnded = false

    var description: String { "scripted" }

    func adoptOnCurrentThread() {}

    func read(into buffer: UnsafeMutableRawBufferPointer, deadline: ContinuousClock.Instant?) throws(TransportError) -> Int {
        guard !closed else { throw .channelClosed }
        while pending.isEmpty {
            guard let next = nextRead() else { return 0 }
            pending = next[...]
            record(next)
        }
        let count = min(buffer.count, pending.count)
        buffer.copyBytes(from: pending.prefix(count))
        pending.removeFirst(count)
        return count
    }

    func write(_ bytes: UnsafeRawBufferPointer, deadline: ContinuousClock.Instant?) throws(TransportError) {
        guard !closed else { throw .channelClosed }
        guard badOutput == nil else { return }
        out.append(contentsOf: bytes)
        do {
            while let frame = try out.nextFrame(using: decoder) { written.append(try Message(frame)) }
        } catch {
            badOutput = "\(error)"
        }
    }

    func waitReadable(orWake wake: Int32?, deadline: ContinuousClock.Instant?) throws(TransportError) -> ChannelReadiness {
        .readable
    }

    func close() { closed = true }

    private func record(_ bytes: [UInt8]) {
        guard !deliveredEnded else { return }
        inbound.append(contentsOf: bytes)
        do {
            while let frame = try inbound.nextFrame(using: FrameDecoder()) { delivered.append(try Message(frame)) }
        } catch {
            deliveredEnded = true
        }
    }
}
