/// Reads one content line's bytes as if it had been unfolded (RFC 6350 §3.2, RFC 2425 §5.8.1):
/// every line break followed by a space or tab is skipped together with that one character.
///
/// Nothing is copied; ``position`` is always an index into the raw, folded bytes, so a caller
/// can stop reading and hand the rest of the line to another reader.
/// Precondition: `bytes[start..<end]` is one content line as ``VCardScanner`` finds it, so
/// every LF inside it is followed by a space or tab that is also inside it.
struct VCardUnfoldingIterator: IteratorProtocol {
    private let bytes: UnsafeBufferPointer<UInt8>
    private let end: Int
    /// Raw index of the next byte to read.
    private(set) var position: Int

    init(bytes: UnsafeBufferPointer<UInt8>, start: Int, end: Int) {
        self.bytes = bytes
        self.end = end
        position = start
    }

    mutating func next() -> UInt8? {
        while position < end {
            let byte = bytes[position]
            if byte == VCardByte.lineFeed {
                position += 2
                continue
            }
            if byte == VCardByte.carriageReturn, position + 1 < end, bytes[position + 1] == VCardByte.lineFeed {
                position += 3
                continue
            }
            position += 1
            return byte
        }
        return nil
    }
}
