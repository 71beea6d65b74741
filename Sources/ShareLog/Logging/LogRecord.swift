/// One line of a long-running process's log (docs/OPERATIONS.md "Logs"):
/// how much it matters, what happened as a name that never changes
/// wording, the sentence a person reads, and typed fields for machines.
/// `LogFormat` writes it as text or as one JSON object.
///
/// A record never holds a card's bytes. Text a peer sent stays in the
/// message, quoted and cut (`PeerText`); the JSON form escapes it again.
public struct LogRecord: Sendable {
    public enum Level: String, Sendable {
        case info, warning, error
    }

    public var level: Level
    /// A dotted name for what happened, such as `sync.session.ended`.
    public var event: String
    /// The line as a person reads it: what the text format prints.
    public var message: String
    /// Typed values for machines, in order; their names are lower camel
    /// case and never `time`, `level`, `event` or `message`.
    public var fields: [(name: String, value: LogValue)]

    public init(_ level: Level, _ event: String, _ message: String, _ fields: [(name: String, value: LogValue)] = []) {
        self.level = level
        self.event = event
        self.message = message
        self.fields = fields
    }
}

/// A field's value in a `LogRecord`.
public enum LogValue: Sendable, Equatable {
    case text(String)
    case integer(Int64)
    case number(Double)
    case flag(Bool)
}

extension LogValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral {
    public init(stringLiteral value: String) { self = .text(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(booleanLiteral value: Bool) { self = .flag(value) }
    public init(_ value: some BinaryInteger) { self = .integer(Int64(clamping: value)) }
    public init(_ value: some CustomStringConvertible) { self = .text(value.description) }
}
