import Foundation

/// One line of a crash-test writer's standard output, as JSON.
///
/// The protocol: `ready` once the store is open; then for each operation a
/// `begin` line before the call and an `ack` line after it returns (and so
/// after its durable commit). A line is written with one `write(2)` of less
/// than `PIPE_BUF` bytes, so a SIGKILL leaves whole lines or none.
public struct CrashLine: Codable, Hashable, Sendable {
    public enum Event: String, Codable, Sendable {
        case ready, begin, ack
    }

    public var event: Event
    public var operation: CrashOperation?
    public var result: CrashResult?

    public init(_ event: Event, _ operation: CrashOperation? = nil, result: CrashResult? = nil) {
        self.event = event
        self.operation = operation
        self.result = result
    }

    /// The line's text, newline included.
    public var text: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // Encoding these plain values cannot fail.
        let data = (try? encoder.encode(self)) ?? Data()
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// Parses one line without its newline; nil for anything else.
    public init?(parsing line: some StringProtocol) {
        guard let decoded = try? JSONDecoder().decode(CrashLine.self, from: Data(line.utf8)) else { return nil }
        self = decoded
    }
}
