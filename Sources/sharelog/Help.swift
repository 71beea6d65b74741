import Foundation
import ShareLog
import ShareSync

/// The texts of `sharelog help`, `sharelog help COMMAND` (or `COMMAND
/// --help`) and `sharelog --version`, made from the commands' declarations.
enum Help {
    static var text: String {
        let rows = commands.map { "  \($0.synopsis)\n      \($0.summary)" }.joined(separator: "\n")
        return """
        usage: sharelog [--store PATH] [--now ISO8601] [--domain D] [--json] COMMAND …

        A ShareLog store keeps short-lived vCard shares for App Clips: an event log,
        fetch-by-ID, expiry sweeps and redaction. Full documentation: docs/CLI.md.
        'sharelog help COMMAND' or 'sharelog COMMAND --help' describes one command.

        commands:
        \(rows)

        common options:
        \(table(OptionSpec.common))

        \(exitCodes)
        """
    }

    static func text(for command: any Command.Type) -> String {
        let options = command.options.filter { !$0.hidden }
        return """
        usage: sharelog \(command.synopsis)

        \(command.summary)
        \(options.isEmpty ? "" : "\noptions:\n\(table(options))\n")
        common options:
        \(table(OptionSpec.common))

        \(exitCodes)
        """
    }

    static let exitCodes =
        "exit codes: 0 ok, 1 failure, 2 usage, 3 not found, 4 expired, 5 invalid input, 6 snapshot required (relay)"

    /// The formats this build reads and writes: what decides whether two
    /// builds can share a store or sync.
    static func version(json: Bool) -> String {
        let store = ShareStore.formatVersion, sync = SyncProtocol.versions.upperBound
        if json { return #"{"storeFormat":\#(store),"syncProtocol":\#(sync)}"# }
        return "sharelog: store format \(store), sync protocol \(sync)"
    }

    /// Two columns: each option's usage, and its help.
    private static func table(_ options: [OptionSpec]) -> String {
        let width = options.map(\.usage.count).max() ?? 0
        return options.map { "  \($0.usage.padding(toLength: width, withPad: " ", startingAt: 0))  \($0.help)" }.joined(separator: "\n")
    }
}
