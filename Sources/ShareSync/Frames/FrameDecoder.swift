/// Reads one frame from the front of a byte buffer: a pure function of the
/// bytes, so it can be tested and fuzzed without sockets
/// (docs/SYNC.md, "Frames").
public struct FrameDecoder: Hashable, Sendable {
    /// The types accepted and the largest payload of each; a type not
    /// allowed, or a longer declared length, is refused before any of its
    /// payload is buffered.
    public var limits: FrameLimits

    /// The largest payload accepted, of any type.
    public var maxPayloadBytes: Int { limits.largestPayload }

    /// A decoder that takes every type up to `maxPayloadBytes`.
    ///
    /// - Precondition: `maxPayloadBytes >= 0`.
    public init(maxPayloadBytes: Int = SyncProtocol.defaultMaxFrameBytes) {
        precondition(maxPayloadBytes >= 0, "the frame limit cannot be negative")
        limits = .all(upTo: maxPayloadBytes)
    }

    /// A decoder that takes what `limits` allows.
    public init(limits: FrameLimits) { self.limits = limits }

    /// Decodes the frame at the front of `buffer`, consuming nothing: the
    /// caller drops `consumed` bytes after a `.frame`.
    ///
    /// The checks run as soon as the bytes they need are present, in wire
    /// order: the length against the largest payload of any type (4
    /// bytes), the type and the length against that type's limit (5
    /// bytes), then the checksum (9 + length bytes).
    ///
    /// - Returns: `.needMore(total:)` while the frame is incomplete, else
    ///   `.frame(_, consumed:)`.
    /// - Throws: `FrameError`; never traps on any input.
    public func decode(_ buffer: UnsafeRawBufferPointer) throws(FrameError) -> FrameDecoding {
        guard buffer.count >= 4 else { return .needMore(total: Frame.headerSize) }
        let length = Int(buffer[0]) << 24 | Int(buffer[1]) << 16 | Int(buffer[2]) << 8 | Int(buffer[3])
        guard length <= maxPayloadBytes else { throw .oversized(length: length, limit: maxPayloadBytes) }
        let total = Frame.headerSize + length
        guard buffer.count >= 5 else { return .needMore(total: total) }
        guard let type = FrameType(rawValue: buffer[4]) else { throw .unknownType(buffer[4]) }
        guard let largest = limits.largestPayload(of: type) else { throw .notAllowed(type, phase: limits.phase) }
        guard length <= largest else { throw .oversized(length: length, limit: largest) }
        guard buffer.count >= total else { return .needMore(total: total) }
        let expected = UInt32(buffer[5]) << 24 | UInt32(buffer[6]) << 16 | UInt32(buffer[7]) << 8 | UInt32(buffer[8])
        let payload = UnsafeRawBufferPointer(rebasing: buffer[Frame.headerSize..<total])
        let found = FrameChecksum.crc32(type: type.rawValue, payload: payload)
        guard found == expected else {
            throw .checksumMismatch(type: type, length: length, expected: expected, found: found)
        }
        return .frame(Frame(type: type, payload: Array(payload)), consumed: total)
    }
}
