/// Reads big-endian integers and byte runs from a buffer, front to back.
///
/// Each `read` moves the reader index; a read past the end returns nil and
/// leaves the index where it was.
struct ByteReader {
    private let bytes: UnsafeRawBufferPointer
    private(set) var offset = 0

    /// - Important: `bytes` must outlive the reader.
    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    var remaining: Int { bytes.count - offset }

    mutating func read<T: FixedWidthInteger>(_: T.Type = T.self) -> T? {
        let size = MemoryLayout<T>.size
        guard remaining >= size else { return nil }
        defer { offset += size }
        return T(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
    }

    /// The next `count` bytes, without copying.
    mutating func readSlice(_ count: Int) -> UnsafeRawBufferPointer? {
        guard count >= 0, remaining >= count else { return nil }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
    }

    mutating func readBytes(_ count: Int) -> [UInt8]? { readSlice(count).map(Array.init) }
}
