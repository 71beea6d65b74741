import CZlib

/// A frame reader written from docs/SYNC.md ("Frames", "Decoding") alone:
/// the `frame` fuzz target's oracle for `FrameDecoder` and `FrameBuffer`.
///
/// It reads a whole stream at once, front to back: each frame is a length
/// u32, a type u8 and a CRC-32 u32 (big-endian), then `length` payload
/// bytes; the CRC is zlib's, over the type byte followed by the payload,
/// computed here in one call over a copy of both.
enum ReferenceFrameReader {
    /// A frame as the stream holds it.
    struct Frame: Hashable {
        var type: UInt8
        var payload: [UInt8]
        /// Where the frame starts in the stream, and its size on the wire.
        var offset: Int
        var size: Int
    }

    /// Why the stream stops.
    enum End: Hashable {
        /// The stream ends inside a frame that starts at `offset`; a decoder
        /// needs `total` bytes from there (9 while the length is unknown).
        case needMore(offset: Int, total: Int)
        /// The frame at `offset` declares `length`, over the limit: known
        /// from its first 4 bytes.
        case oversized(offset: Int, length: Int)
        /// The frame at `offset` has a type byte outside 1…16: known from its
        /// first 5 bytes.
        case unknownType(offset: Int, byte: UInt8)
        /// The frame at `offset`'s CRC is `expected` in the header, `found`
        /// over its bytes.
        case checksum(offset: Int, type: UInt8, length: Int, expected: UInt32, found: UInt32)
    }

    /// The frames of `stream` under a payload limit of `limit`, and why it stops.
    static func read(_ stream: [UInt8], limit: Int) -> (frames: [Frame], end: End) {
        var frames: [Frame] = []
        var offset = 0
        while true {
            let left = stream.count - offset
            guard left >= 4 else { return (frames, .needMore(offset: offset, total: 9)) }
            let length = stream[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            guard length <= limit else { return (frames, .oversized(offset: offset, length: length)) }
            guard left >= 5 else { return (frames, .needMore(offset: offset, total: 9 + length)) }
            let type = stream[offset + 4]
            guard (1...17).contains(type) else { return (frames, .unknownType(offset: offset, byte: type)) }
            guard left >= 9 + length else { return (frames, .needMore(offset: offset, total: 9 + length)) }
            let expected = stream[offset + 5..<offset + 9].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            let payload = Array(stream[offset + 9..<offset + 9 + length])
            let found = crc32(type: type, payload: payload)
            guard found == expected else {
                return (frames, .checksum(offset: offset, type: type, length: length, expected: expected, found: found))
            }
            frames.append(Frame(type: type, payload: payload, offset: offset, size: 9 + length))
            offset += 9 + length
        }
    }

    /// zlib's CRC-32 of the type byte followed by the payload.
    static func crc32(type: UInt8, payload: some Collection<UInt8>) -> UInt32 {
        let covered = [type] + Array(payload)
        return UInt32(covered.withUnsafeBufferPointer { crc32_z(0, $0.baseAddress, $0.count) })
    }

    /// `stream` with the CRC of each frame that fits under `limit` set to
    /// the right one, front to back until a frame does not fit: lets the
    /// fuzzer reach past the checksum into the types and the messages.
    static func sealed(_ stream: [UInt8], limit: Int) -> [UInt8] {
        var sealed = stream
        var offset = 0
        while sealed.count - offset >= 9 {
            let length = sealed[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            guard length <= limit, sealed.count - offset >= 9 + length else { break }
            let crc = crc32(type: sealed[offset + 4], payload: sealed[offset + 9..<offset + 9 + length])
            for index in 0..<4 { sealed[offset + 5 + index] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * index)) }
            offset += 9 + length
        }
        return sealed
    }
}
