/// CRC-32 (the reflected polynomial 0xEDB88320, as zlib's) computed bit by
/// bit: an oracle written apart from the code under test, which calls zlib.
enum ReferenceCRC32 {
    static func of(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
