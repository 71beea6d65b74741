import ShareLog

/// Reads a message's fields from a frame's payload, front to back,
/// integers big-endian; every failure is a `MessageError` naming the field.
struct PayloadReader {
    let type: FrameType
    private let bytes: [UInt8]
    private var offset = 0

    init(_ frame: Frame) {
        type = frame.type
        bytes = frame.payload
    }

    var remaining: Int { bytes.count - offset }

    mutating func read<T: FixedWidthInteger>(_: T.Type, _ field: String) throws(MessageError) -> T {
        let raw = try read(count: MemoryLayout<T>.size, field)
        return raw.reduce(T.zero) { $0 << 8 | T($1) }
    }

    mutating func read(count: Int, _ field: String) throws(MessageError) -> ArraySlice<UInt8> {
        guard remaining >= count else { throw .truncated(type, field: field) }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    mutating func read<I: Identifier>(_: I.Type, _ field: String) throws(MessageError) -> I {
        I(wireBytes: try read(count: 16, field))
    }

    /// A one-byte enumeration; a byte it does not define is `invalidValue`.
    mutating func read<E: RawRepresentable<UInt8>>(_: E.Type, _ field: String) throws(MessageError) -> E {
        let byte = try read(UInt8.self, field)
        guard let value = E(rawValue: byte) else { throw .invalidValue(type, field: field, value: UInt64(byte)) }
        return value
    }

    /// `count` events, each length u32 ‖ bytes, named `prefix[i]`.
    mutating func readEvents(count: Int, _ prefix: String) throws(MessageError) -> EncodedEvents {
        var events: [[UInt8]] = []
        for index in 0..<count {
            let length = try read(UInt32.self, "\(prefix)[\(index)].length")
            events.append(Array(try read(count: Int(length), "\(prefix)[\(index)]")))
        }
        return EncodedEvents(encoded: events)
    }

    /// The bytes left, up to the end.
    mutating func readRest() -> ArraySlice<UInt8> {
        defer { offset = bytes.count }
        return bytes[offset...]
    }

    /// Refuses bytes after the last field.
    func finish() throws(MessageError) {
        guard remaining == 0 else { throw .trailingBytes(type, count: remaining) }
    }
}
