import Foundation
import ShareLog

struct ShareCreateCommand: Command {
    static let name = "share create"
    static let synopsis = "share create FILE|- [--ttl 7d]"
    static let summary = "Share the vCard in FILE (or standard input); print its id, link and expiry."

    struct Output: Encodable {
        let id: String
        let link: String
        let createdAt: String
        let expiresAt: String
    }

    static let options: [OptionSpec] = [.value("ttl", "7d", "how long the share lives: a whole number of s, m, h or d, from 1 minute to 30 days")]

    static func run(_ arguments: inout Arguments, _ context: Context) throws -> Int32 {
        let source = try arguments.positional("vCard file (or - for standard input)")
        let ttlText = try arguments.option("ttl") ?? "7d"
        let ttl = try TTL.parse(ttlText)
        try arguments.finish()
        // Checked here, where the unit the user gave is known (`0d`, not
        // the library's `0s`), before any file is read or store opened.
        guard ShareStore.ttlRange.contains(ttl) else { throw CLIError.invalidInput(ShareLogError.invalidTTLMessage(ttlText)) }
        let vCard = try readInput(source)
        let store = try context.openStore()
        defer { store.close() }
        let created = try store.create(vCard: vCard, ttl: ttl)
        let output = Output(
            id: "\(created.recordName)", link: created.link,
            createdAt: created.createdAt.iso8601, expiresAt: created.expiresAt.iso8601)
        if context.json { try context.printJSON(output); return ExitCode.success }
        context.print("id:      \(output.id)")
        context.print("link:    \(output.link)")
        context.print("expires: \(output.expiresAt)")
        return ExitCode.success
    }

    /// The bytes of FILE, or of standard input for `-`.
    static func readInput(_ source: String) throws -> [UInt8] {
        if source == "-" { return Array(FileHandle.standardInput.readDataToEndOfFile()) }
        guard let data = FileManager.default.contents(atPath: source) else {
            throw CLIError.invalidInput("cannot read '\(source)': no such readable file")
        }
        return Array(data)
    }
}
