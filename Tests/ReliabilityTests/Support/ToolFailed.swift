/// A program a test needs to succeed exited non-zero.
struct ToolFailed: Error, CustomStringConvertible {
    let command: String
    let result: ExternalCommand
    var description: String { "\(command) exited \(result.status): \(result.error)" }
}
