/// One unit on the wire: a type and its payload (docs/SYNC.md, "Frames").
///
/// On the wire a frame is a 9-byte header, `length` u32 (the payload's
/// size) ‖ `type` u8 ‖ `crc` u32, followed by the payload; integers are
/// big-endian. `FrameEncoder` writes it, `FrameDecoder` reads it.
public struct Frame: Hashable, Sendable {
    /// The size of the header in front of every payload: length (4), type (1), CRC-32 (4).
    public static let headerSize = 9

    /// Which message the payload is.
    public var type: FrameType
    /// The message's bytes; at most `UInt32.max` of them, and a receiver
    /// accepts at most its `FrameDecoder.maxPayloadBytes`.
    public var payload: [UInt8]

    /// A frame of `type` carrying `payload`.
    public init(type: FrameType, payload: [UInt8]) {
        self.type = type
        self.payload = payload
    }
}
