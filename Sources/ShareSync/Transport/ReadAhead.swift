/// What a channel took from its peer while one of its writes waited for
/// room (`ByteChannel.write(_:deadline:readingAhead:)`): bytes, and then
/// possibly the end of the stream or a failed read. The channel's reads
/// return these first, in order, and its waits count them as readable.
///
/// It holds at most the limit each fill is given, so a peer that writes
/// and never reads can make a channel hold that much and no more.
struct ReadAhead {
    /// How the stream ended behind the bytes held.
    enum End {
        /// The peer closed the stream: a read returns 0.
        case closed
        /// A read failed: a read throws this.
        case failed(TransportError)
    }

    private var bytes: [UInt8] = []
    /// Where the bytes not yet returned begin.
    private var start = 0
    private(set) var end: End?

    /// Whether a read has something to return without the descriptor.
    var isEmpty: Bool { start == bytes.count && end == nil }

    /// Whether a write should watch for the peer's bytes: the stream has
    /// not ended and fewer than `limit` bytes are held.
    func wants(upTo limit: Int) -> Bool {
        end == nil && bytes.count - start < limit
    }

    /// Reads once, with `read` (the channel's `Posix.read` on its
    /// descriptor), at most 64 KiB and no more than brings the bytes held
    /// to `limit`. A read that would block takes nothing; one that fails
    /// ends the stream with `failure` of its `errno`.
    mutating func fill(upTo limit: Int, _ read: (UnsafeMutableRawBufferPointer) -> Posix.Outcome, failure: (Int32) -> TransportError) {
        let room = min(limit - (bytes.count - start), Self.chunkBytes)
        guard end == nil, room > 0 else { return }
        if start > 0 {
            bytes.removeFirst(start)
            start = 0
        }
        withUnsafeTemporaryAllocation(byteCount: room, alignment: 1) { chunk in
            switch read(chunk) {
            case .transferred(0): end = .closed
            case .transferred(let count): bytes.append(contentsOf: chunk[..<count])
            case .wouldBlock: break
            case .failed(let code): end = .failed(failure(code))
            }
        }
    }

    /// The most one fill reads.
    private static let chunkBytes = 64 * 1024

    /// Moves held bytes into `buffer` and returns how many; at the end of
    /// the bytes, 0 for a closed stream or the failure thrown; nil when
    /// nothing is held (read the descriptor).
    mutating func take(into buffer: UnsafeMutableRawBufferPointer) throws(TransportError) -> Int? {
        guard start == bytes.count else {
            let count = min(buffer.count, bytes.count - start)
            bytes.withUnsafeBytes { all in buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: all[start..<start + count])) }
            start += count
            if start == bytes.count {
                bytes.removeAll(keepingCapacity: false)
                start = 0
            }
            return count
        }
        switch end {
        case nil: return nil
        case .closed: return 0
        case .failed(let error): throw error
        }
    }
}
