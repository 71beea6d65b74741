/// A connected, reliable, ordered byte stream to one peer: a socket, a TLS
/// session over a socket, or the process's standard input and output.
///
/// The sync server runs one thread per connection with blocking calls, and
/// every call that waits for the peer takes a deadline (nil: no deadline).
/// A deadline bounds the wait, not the work: a call whose bytes are ready
/// completes even when its deadline has passed.
///
/// Threads: a channel is not `Sendable`. It belongs to one thread, its
/// owner: the thread that made it, until it is handed to another as a
/// `sending` value (SE-0430; `Handoff` carries it into a new thread), which
/// the compiler allows only when the giver keeps no reference to it. The
/// receiving thread calls `adoptOnCurrentThread()` before its first use;
/// from then on every call, `close()` included, must come from it, and
/// debug builds assert that they do (`OwningThread`). A channel belongs to
/// a thread, not a task: async code, which may resume on another thread
/// after each `await`, runs a channel on a thread of its own. To interrupt
/// a waiting session thread, write to the wake-up descriptor it waits on
/// (`waitReadable(orWake:deadline:)`).
public protocol ByteChannel: AnyObject, CustomStringConvertible {
    /// Makes the calling thread the channel's owner, the one thread that
    /// may use it from now on (with the channel under it, for one that
    /// wraps another). Call it on the thread the channel was handed to,
    /// before anything else.
    func adoptOnCurrentThread()

    /// Reads at least one byte, at most `buffer.count`, into `buffer`, and
    /// returns how many; 0 means that the peer closed the stream. Waits for
    /// the peer until `deadline`, then throws `TransportError.timedOut`.
    /// `buffer` must not be empty.
    func read(into buffer: UnsafeMutableRawBufferPointer, deadline: ContinuousClock.Instant?) throws(TransportError) -> Int

    /// Writes all of `bytes`, or throws. Waits for a slow reader only until
    /// `deadline`, then throws `TransportError.timedOut`; some of the bytes
    /// may have been sent by then, so the stream is unusable after a failed
    /// write and should be closed.
    func write(_ bytes: UnsafeRawBufferPointer, deadline: ContinuousClock.Instant?) throws(TransportError)

    /// Writes as `write(_:deadline:)` does, and while the peer has no room
    /// for the bytes, takes what the peer sends meanwhile, up to `limit`
    /// bytes held, for later reads to return first. Two sides that both
    /// write more than the connection buffers, and read only after, then
    /// never wait on each other (docs/SYNC.md "Both ways in one session").
    /// The end of the stream or a failed read met meanwhile is reported by
    /// the read that comes to it; the write goes on while the peer takes
    /// bytes. A channel that cannot read ahead (the default) just writes.
    func write(_ bytes: UnsafeRawBufferPointer, deadline: ContinuousClock.Instant?, readingAhead limit: Int) throws(TransportError)

    /// Waits until a `read` would find something (bytes, the end of the
    /// stream, an error), or `wake` becomes readable, or `deadline` passes.
    /// Bytes that the channel has already taken from the kernel (a TLS
    /// session's decrypted bytes) count as readable. Nothing is consumed,
    /// from the channel or from `wake`. When both are ready the answer is
    /// `.readable`.
    ///
    /// The wake-up descriptor lets a session in follow mode wait for its
    /// peer and for the store's commit notification at once.
    func waitReadable(orWake wake: Int32?, deadline: ContinuousClock.Instant?) throws(TransportError) -> ChannelReadiness

    /// Ends the stream and frees its resources. Idempotent. Later reads and
    /// writes throw `TransportError.channelClosed`.
    func close()

    /// The peer, for log lines: `tcp:127.0.0.1:52114`, `unix:/run/s.sock
    /// (pid 4242, uid 1000)`, `stdio`.
    var description: String { get }
}

extension ByteChannel {
    public func write(_ bytes: UnsafeRawBufferPointer, deadline: ContinuousClock.Instant?, readingAhead limit: Int) throws(TransportError) {
        try write(bytes, deadline: deadline)
    }

    /// Writes all of `bytes` (see `write(_:deadline:)`).
    public func write(_ bytes: [UInt8], deadline: ContinuousClock.Instant?) throws(TransportError) {
        let written = bytes.withUnsafeBytes { buffer in
            Result { () throws(TransportError) in try write(buffer, deadline: deadline) }
        }
        try written.get()
    }
}
