import CZlib

/// The CRC-32 of a byte run, from zlib (`crc32_z`).
///
/// The design called for CRC32C. Debian ships no maintained C library for
/// it and checksums are not ours to hand-write, so ShareLog uses zlib's
/// CRC-32, which detects the same accidental corruption at these sizes.
enum Checksum {
    static func crc32(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        guard let base = bytes.baseAddress else { return UInt32(CZlib.crc32_z(0, nil, 0)) }
        return UInt32(CZlib.crc32_z(0, base.assumingMemoryBound(to: UInt8.self), bytes.count))
    }
}
