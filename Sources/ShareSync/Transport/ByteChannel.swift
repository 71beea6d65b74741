/// A connected, reliable, ordered byte stream to one peer: a socket, a TLS
/// session over a socket, or the process's standard input and output.
///
/// The sync server runs one thread per connection with blocking calls, and
/// every call that waits for the peer takes a deadline (nil: no deadline).
/// A deadline bounds the wait, not the work: a call whose bytes are ready
/// completes even when its deadline has passed.
///
/// Writing never has to stop a thread from reading: `writeSome` takes what
/// the channel can take now, and `waitReady` waits for the peer to send
/// *or* to make room, so a thread that has much to send keeps reading what
/// its peer sends meanwhile (`MessageChannel.send`). `write` is the
/// blocking loop over both, for callers whose peer is known to be reading.
///
/// Thread-safety: a channel is `Sendable` so that it can be handed to the
/// thread that runs its session, but it is used by one thread at a time.
/// Calls from two threads at once, `close()` included, are not allowed. To
/// interrupt a waiting session thread, write to the wake-up descriptor it
/// waits on (`waitReady(reading:writing:orWake:deadline:)`).
public protocol ByteChannel: AnyObject, Sendable, CustomStringConvertible {
    /// Reads at least one byte, at most `buffer.count`, into `buffer`, and
    /// returns how many; 0 means that the peer closed the stream. Waits for
    /// the peer until `deadline`, then throws `TransportError.timedOut`.
    /// `buffer` must not be empty.
    func read(into buffer: UnsafeMutableRawBufferPointer, deadline: ContinuousClock.Instant?) throws(TransportError) -> Int

    /// Writes some of `bytes`, from the front: waits until the channel takes
    /// at least one byte, then also hands over whatever more it takes
    /// without waiting, and returns how many it took (1 to `bytes.count`).
    /// Waits for the peer to make room only until `deadline`, then throws
    /// `TransportError.timedOut`, having taken nothing. `bytes` must not be
    /// empty.
    ///
    /// A byte taken is the channel's to deliver: it is with the kernel, or,
    /// for TLS, encrypted and held until the socket takes it
    /// (`hasPendingOutput`). After a failure the stream is unusable and
    /// should be closed.
    func writeSome(_ bytes: UnsafeRawBufferPointer, deadline: ContinuousClock.Instant?) throws(TransportError) -> Int

    /// Whether bytes that `writeSome` took are still held by the channel,
    /// not yet with the kernel: a TLS channel's ciphertext that the socket
    /// had no room for. They go out while the channel waits with `writing`
    /// (`waitReady`), or in the next `writeSome`. Channels that hand every
    /// byte straight to the kernel never hold any.
    var hasPendingOutput: Bool { get }

    /// Waits until the channel is ready for what is asked, `reading`
    /// (`.readable`), `writing` (`.writable`), or until `wake` becomes
    /// readable (`.woken`), or `deadline` passes (the empty set). Reports
    /// everything found ready at once. A deadline that has passed still
    /// looks once, without waiting.
    ///
    /// - `.readable`: a `read` would find something (bytes, the end of the
    ///   stream, an error) without waiting for the peer. Bytes that the
    ///   channel has already taken from the kernel (a TLS session's whole
    ///   records) count; part of a TLS record does not.
    /// - `.writable`: a `writeSome` would take at least one byte without
    ///   waiting. A TLS channel sends its pending output while it waits,
    ///   and is writable once none is left.
    ///
    /// Nothing is consumed, from the channel or from `wake`. The wake-up
    /// descriptor lets a session in follow mode wait for its peer and for
    /// the store's commit notification at once.
    func waitReady(
        reading: Bool, writing: Bool, orWake wake: Int32?, deadline: ContinuousClock.Instant?
    ) throws(TransportError) -> ChannelReady

    /// Ends the stream and frees its resources. Idempotent. Later reads and
    /// writes throw `TransportError.channelClosed`.
    func close()

    /// The peer, for log lines: `tcp:127.0.0.1:52114`, `unix:/run/s.sock
    /// (pid 4242, uid 1000)`, `stdio`.
    var description: String { get }
}

extension ByteChannel {
    public var hasPendingOutput: Bool { false }

    /// Writes all of `bytes`, pending output included, or throws: a loop
    /// over `writeSome` and `waitReady(writing:)` that reads nothing. Waits
    /// for a slow reader only until `deadline`, then throws
    /// `TransportError.timedOut`; some of the bytes may have been sent by
    /// then, so the stream is unusable after a failed write and should be
    /// closed.
    public func write(_ bytes: UnsafeRawBufferPointer, deadline: ContinuousClock.Instant?) throws(TransportError) {
        var offset = 0
        while offset < bytes.count {
            offset += try writeSome(UnsafeRawBufferPointer(rebasing: bytes[offset...]), deadline: deadline)
        }
        while hasPendingOutput {
            guard try waitReady(reading: false, writing: true, orWake: nil, deadline: deadline).contains(.writable) else {
                throw .timedOut(waitingFor: "\(description) to take the bytes written to it")
            }
        }
    }

    /// Writes all of `bytes` (see `write(_:deadline:)`).
    public func write(_ bytes: [UInt8], deadline: ContinuousClock.Instant?) throws(TransportError) {
        let written = bytes.withUnsafeBytes { buffer in
            Result { () throws(TransportError) in try write(buffer, deadline: deadline) }
        }
        try written.get()
    }

    /// Waits until a `read` would find something (bytes, the end of the
    /// stream, an error), or `wake` becomes readable, or `deadline` passes:
    /// `waitReady(reading: true, writing: false, …)` as one answer. When
    /// both are ready the answer is `.readable`.
    public func waitReadable(orWake wake: Int32?, deadline: ContinuousClock.Instant?) throws(TransportError) -> ChannelReadiness {
        let ready = try waitReady(reading: true, writing: false, orWake: wake, deadline: deadline)
        if ready.contains(.readable) { return .readable }
        return ready.contains(.woken) ? .woken : .timedOut
    }
}
