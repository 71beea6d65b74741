internal import CZlib

/// The CRC-32 (ISO-HDLC, zlib's `crc32_z`) of bytes fed in one or more
/// runs: the one checksum of the log's events, the high-water file and the
/// sync frames.
///
/// The design called for CRC32C. Debian ships no maintained C library for
/// it and checksums are not ours to hand-write, so ShareLog uses zlib's
/// CRC-32, which detects the same accidental corruption at these sizes.
package struct CRC32: Sendable {
    /// The checksum of everything fed so far (0 for nothing).
    package private(set) var value: UInt32 = 0

    package init() {}

    /// Feeds `bytes` after what was fed before.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        value = UInt32(CZlib.crc32_z(UInt(value), base.assumingMemoryBound(to: UInt8.self), bytes.count))
    }

    /// Feeds one byte.
    package mutating func update(_ byte: UInt8) {
        withUnsafeBytes(of: byte) { update($0) }
    }

    /// The checksum of `bytes` alone.
    package static func of(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }
}
