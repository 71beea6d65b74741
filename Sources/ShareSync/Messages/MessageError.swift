import ShareLog

/// Why a frame's payload is not the message its type says. Each one ends
/// the session; `field` names the field as docs/SYNC.md does, with
/// indices for repeated ones (`events[3].length`, `records[1].name`).
public enum MessageError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The payload ends inside or before `field`.
    case truncated(FrameType, field: String)
    /// The payload goes on for `count` bytes after its last field.
    case trailingBytes(FrameType, count: Int)
    /// A `hello` does not begin with `SyncProtocol.magic`.
    case badMagic([UInt8])
    /// An enumerated field holds a value it does not define.
    case invalidValue(FrameType, field: String, value: UInt64)
    /// A count is outside what the message allows.
    case countOutOfRange(FrameType, field: String, count: Int, allowed: ClosedRange<Int>)
    /// A `hello` whose minimum version is above its maximum.
    case invalidVersionRange(min: UInt16, max: UInt16)
    /// The event at `index` of a batch, snapshot batch or record does not
    /// decode.
    case invalidEvent(index: Int, EventDecodingError)

    public var description: String {
        let fault = "the peer is not a compatible ShareLog sync peer; "
            + "check that both sides run a ShareLog that speaks protocol \(SyncProtocol.versions)"
        return switch self {
        case .truncated(let type, let field):
            "a \(type) message ends before its \(field) is complete: \(fault)"
        case .trailingBytes(let type, let count):
            "a \(type) message carries \(count) bytes after its last field: \(fault)"
        case .badMagic(let bytes):
            "the first message does not begin with \"SLSY\" but with bytes \(bytes.map { String($0, radix: 16) }.joined(separator: " ")): "
                + "the peer is not speaking the ShareLog sync protocol; check the address"
        case .invalidValue(let type, let field, let value):
            "a \(type) message holds \(value) in \(field), which the protocol does not define: \(fault)"
        case .countOutOfRange(let type, let field, let count, let allowed):
            "a \(type) message holds \(count) in \(field), outside \(allowed.lowerBound)…\(allowed.upperBound): \(fault)"
        case .invalidVersionRange(let min, let max):
            "a hello offers protocol versions \(min)…\(max), an empty range: \(fault)"
        case .invalidEvent(let index, let error):
            "event \(index) of the message does not decode (\(error)); the peer's store may be damaged: run `sharelog verify` there"
        }
    }
}
