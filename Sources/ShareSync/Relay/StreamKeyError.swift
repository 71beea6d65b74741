/// Why bytes are not a stream key's file form (`StreamKey(encoded:)`). Each
/// description says what is wrong and what the form should be.
public enum StreamKeyError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The text does not end with a newline (it may be cut short).
    case missingNewline
    /// The line does not begin with "sharelog-stream-key ".
    case notAStreamKey
    /// The line has this many space-separated fields instead of 4.
    case wrongFieldCount(Int)
    /// The version field is not "v1".
    case unsupportedVersion(String)
    /// The hour field is not a non-negative decimal Int64 without leading zeros.
    case malformedHour(String)
    /// The chain key field is not 64 lowercase hexadecimal characters (it
    /// has this many characters; the field's text is not repeated).
    case malformedChainKey(characters: Int)

    static let expected = "a stream key file holds one line, 'sharelog-stream-key v1 <hour> <64 lowercase hex digits>' and a newline"

    public var description: String {
        let problem =
            switch self {
            case .missingNewline: "the text does not end with a newline, so it may be cut short"
            case .notAStreamKey: "it does not begin with 'sharelog-stream-key '"
            case .wrongFieldCount(let count): "it has \(count) space-separated fields instead of 4"
            case .unsupportedVersion(let version): "version '\(version)' is not supported (this build reads v1)"
            case .malformedHour(let text): "the hour '\(text)' is not a decimal number of hours since the Unix epoch"
            case .malformedChainKey(let count): "the chain key is not 64 lowercase hexadecimal digits (it has \(count) characters)"
            }
        return "not a stream key: \(problem); \(Self.expected), exactly as an exported stream key file holds it"
    }
}
