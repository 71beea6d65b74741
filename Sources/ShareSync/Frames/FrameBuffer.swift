/// The bytes a transport has read and not yet decoded into frames, so that
/// no transport loop re-implements the buffering.
///
/// Use: after each read, `append` what arrived, then call
/// `nextFrame(using:)` until it returns nil. Used so, the buffer never
/// holds more than `Frame.headerSize + maxPayloadBytes` plus one read's
/// worth of bytes: after a drain it keeps less than one frame, and an
/// oversized length is refused as soon as it is read.
public struct FrameBuffer: Sendable {
    private var bytes: [UInt8] = []
    /// Where the bytes not yet decoded begin.
    private var start = 0
    /// Whether `nextFrame` last returned nil, so another read may be appended.
    private var drained = true
    /// The error a bad frame raised: the stream cannot be read past it.
    private var failure: FrameError?

    /// An empty buffer.
    public init() {}

    /// The bytes the buffer holds. Bytes of returned frames are released
    /// when `nextFrame(using:)` returns nil, so after a drain this is
    /// exactly the bytes of the incomplete frame at the end of the stream.
    public var bytesHeld: Int { bytes.count }

    /// Adds bytes read from the peer. After a `FrameError` they are
    /// dropped: nothing more is decoded from that stream.
    ///
    /// - Precondition: `nextFrame(using:)` returned nil (or threw) since
    ///   the last append. This keeps the buffer bounded.
    public mutating func append(contentsOf read: some Collection<UInt8>) {
        guard failure == nil else { return }
        precondition(drained, "call nextFrame(using:) until it returns nil before appending another read")
        bytes.append(contentsOf: read)
        drained = read.isEmpty
    }

    /// The next whole frame, or nil when the bytes held are not yet one
    /// (then consumed bytes are released and the rest moved to the front).
    ///
    /// - Throws: the `FrameError` of the first bad frame, again on every
    ///   later call.
    public mutating func nextFrame(using decoder: FrameDecoder) throws(FrameError) -> Frame? {
        if let failure { throw failure }
        let start = self.start
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(FrameError) in try decoder.decode(UnsafeRawBufferPointer(rebasing: raw[start...])) }
        }
        switch result {
        case .success(.frame(let frame, let consumed)):
            self.start += consumed
            return frame
        case .success(.needMore):
            bytes.removeFirst(start)
            self.start = 0
            drained = true
            return nil
        case .failure(let error):
            failure = error
            bytes = []
            self.start = 0
            throw error
        }
    }
}
