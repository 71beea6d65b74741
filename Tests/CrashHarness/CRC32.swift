/// zlib's CRC-32, written from docs/FORMAT.md's definition (the IEEE 802.3
/// polynomial reflected, 0xEDB88320; initial value and final XOR
/// 0xFFFFFFFF), so `Format1StoreWriter` needs none of the engine's code.
/// Check value: "123456789" gives 0xCBF43926.
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { byte in
        (0..<8).reduce(UInt32(byte)) { crc, _ in crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }

    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        ~bytes.reduce(UInt32.max) { crc, byte in table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
    }
}
