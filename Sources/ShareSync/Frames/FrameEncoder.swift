/// Writes frames in their wire form (docs/SYNC.md, "Frames").
public enum FrameEncoder {
    /// The bytes of `frame`: length u32 ‖ type u8 ‖ CRC-32 u32 (over the
    /// type byte and the payload) ‖ payload, integers big-endian.
    ///
    /// It does not check the receiver's limit: a peer refuses a payload
    /// over its `FrameDecoder.maxPayloadBytes` (4 MiB by default), so the
    /// sender keeps batches below it.
    ///
    /// - Precondition: the payload is at most `UInt32.max` bytes.
    public static func encode(_ frame: Frame) -> [UInt8] {
        precondition(frame.payload.count <= UInt32.max, "a frame payload is at most 4 GiB - 1 bytes")
        let crc = frame.payload.withUnsafeBytes { FrameChecksum.crc32(type: frame.type.rawValue, payload: $0) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Frame.headerSize + frame.payload.count)
        withUnsafeBytes(of: UInt32(frame.payload.count).bigEndian) { bytes.append(contentsOf: $0) }
        bytes.append(frame.type.rawValue)
        withUnsafeBytes(of: crc.bigEndian) { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: frame.payload)
        return bytes
    }
}
