import SharePrimitives

/// The CRC-32 a frame header carries: over the type byte followed by the
/// payload.
enum FrameChecksum {
    static func crc32(type: UInt8, payload: UnsafeRawBufferPointer) -> UInt32 {
        var crc = CRC32()
        crc.update(type)
        crc.update(payload)
        return crc.value
    }
}
