/// Why bytes are not an event.
public enum EventDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    case truncated(Int)
    case unsupportedVersion(UInt8)
    case lengthMismatch(declared: Int, actual: Int)
    case checksumMismatch
    case malformedPayload(String)
    /// Flag bits this format does not define for the kind (only shareCreated has one, bit 0).
    case undefinedFlags(kind: UInt8, flags: UInt8)

    public var description: String {
        switch self {
        case .truncated(let count): "event of \(count) bytes is shorter than the 35-byte minimum"
        case .unsupportedVersion(let version): "event format \(version) is newer than this build reads (1); upgrade ShareLog"
        case .lengthMismatch(let declared, let actual): "event declares a \(declared)-byte payload but carries \(actual) bytes"
        case .checksumMismatch: "event checksum does not match its bytes"
        case .malformedPayload(let reason): "malformed event payload: \(reason)"
        case .undefinedFlags(let kind, let flags): "event of kind \(kind) sets flags \(flags) that format 1 does not define"
        }
    }
}
