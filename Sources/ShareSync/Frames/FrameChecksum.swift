import CZlib

/// The CRC-32 a frame header carries: zlib's `crc32_z` over the type byte
/// followed by the payload.
enum FrameChecksum {
    static func crc32(type: UInt8, payload: UnsafeRawBufferPointer) -> UInt32 {
        var crc = withUnsafePointer(to: type) { CZlib.crc32_z(0, $0, 1) }
        if let base = payload.baseAddress, !payload.isEmpty {
            crc = CZlib.crc32_z(crc, base.assumingMemoryBound(to: UInt8.self), payload.count)
        }
        return UInt32(crc)
    }
}
