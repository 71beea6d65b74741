import Foundation

/// Writes big-endian integers and raw bytes into a buffer sized in advance,
/// front to back: what the write path encodes with straight into the space
/// LMDB reserves for a value (`MDB_RESERVE`), with no array in between.
/// Writes the same bytes `ByteWriter` appends for the same calls.
///
/// Writing past the buffer's end traps: the caller sized it from the
/// value it encodes, so that is a bug, never bad input.
struct BufferWriter {
    private let buffer: UnsafeMutableRawBufferPointer
    private(set) var offset = 0

    /// - Important: `buffer` must outlive the writer.
    init(_ buffer: UnsafeMutableRawBufferPointer) { self.buffer = buffer }

    /// The bytes written so far.
    var written: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: buffer[..<offset]) }

    mutating func write<T: FixedWidthInteger>(_ value: T) {
        reserve(MemoryLayout<T>.size).storeBytes(of: value.bigEndian, as: T.self)
    }

    /// An identifier's 16 raw bytes (`Identifier.bytes`).
    mutating func write(_ identifier: some Identifier) {
        reserve(16).storeBytes(of: identifier.uuid.uuid, as: uuid_t.self)
    }

    mutating func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { reserve($0.count).copyMemory(from: $0) }
    }

    /// The next `count` bytes, which the caller fills.
    private mutating func reserve(_ count: Int) -> UnsafeMutableRawBufferPointer {
        precondition(count <= buffer.count - offset, "a BufferWriter is sized for what it writes")
        defer { offset += count }
        return UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<offset + count])
    }
}
