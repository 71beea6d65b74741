/// A log entry that does not decode.
public struct CorruptEvent: Sendable, Hashable, CustomStringConvertible {
    public let position: UInt64
    public let reason: String

    public var description: String { "log entry \(position): \(reason)" }
}
