/// Why the bytes at the front of a buffer are not a frame. Each one ends
/// the session: the stream can no longer be trusted to be in step.
public enum FrameError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The header declares a payload of `length` bytes, over the
    /// receiver's `limit`. Raised as soon as the 4 length bytes are
    /// present, before any of the payload is buffered.
    case oversized(length: Int, limit: Int)
    /// The type byte is not a `FrameType`. Raised as soon as it is present.
    case unknownType(UInt8)
    /// A known type that may not come now (`FrameLimits`), such as a batch
    /// before the handshake ends. Raised as soon as the type byte is present.
    case notAllowed(FrameType, phase: String)
    /// The CRC-32 in the header (`expected`) is not the one of the type
    /// byte and the `length`-byte payload that arrived (`found`).
    case checksumMismatch(type: FrameType, length: Int, expected: UInt32, found: UInt32)

    public var description: String {
        switch self {
        case .oversized(let length, let limit):
            "the peer sent a frame of \(length) payload bytes, over the limit of \(limit): "
                + "it is not a ShareLog sync peer, or it sends batches larger than this side accepts"
        case .unknownType(let byte):
            "the peer sent a frame of type \(byte), which this build does not know "
                + "(1…\(FrameType.allCases.count)): it is not a ShareLog sync peer, or a newer one; check both versions"
        case .notAllowed(let type, let phase):
            "the peer sent a \(type) frame, which may not come \(phase); it does not follow the protocol"
        case .checksumMismatch(let type, let length, let expected, let found):
            "a \(type) frame of \(length) payload bytes arrived damaged: its header says CRC-32 "
                + "\(hex(expected)) but the bytes give \(hex(found)); reconnect to resume from the cursor"
        }
    }

    private func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return "0x" + String(repeating: "0", count: 8 - digits.count) + digits
    }
}
