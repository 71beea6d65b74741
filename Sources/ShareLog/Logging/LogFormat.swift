import SharePrimitives

/// How a process writes its `LogRecord`s, one line each
/// (docs/OPERATIONS.md "Logs"):
///
/// - `text`: `sharelog: MESSAGE`, the lines people read on a terminal;
/// - `json`: one object per line, `time` (ISO 8601, UTC, milliseconds),
///   `level`, `event` and `message` first, then the record's fields. Every
///   string goes through `JSONText` (quotes, backslashes and control
///   characters escaped), so no text can break a line or an object.
public enum LogFormat: String, Sendable {
    case text, json

    /// `record` as one line, without its newline, stamped `time` (JSON only).
    public func line(_ record: LogRecord, at time: Timestamp) -> String {
        switch self {
        case .text:
            return "sharelog: " + record.message
        case .json:
            var object = "{\"time\":\"\(time.iso8601)\",\"level\":\"\(record.level.rawValue)\",\"event\":"
            object += JSONText.quoted(record.event) + ",\"message\":" + JSONText.quoted(record.message)
            for (name, value) in record.fields {
                object += "," + JSONText.quoted(name) + ":" + Self.json(value)
            }
            return object + "}"
        }
    }

    private static func json(_ value: LogValue) -> String {
        switch value {
        case .text(let text): JSONText.quoted(text)
        case .integer(let number): String(number)
        case .number(let number): number.isFinite ? "\(number)" : "null"
        case .flag(let flag): flag ? "true" : "false"
        }
    }
}
