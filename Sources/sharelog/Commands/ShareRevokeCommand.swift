import ShareLog

struct ShareRevokeCommand: Command {
    static let name = "share revoke"
    static let synopsis = "share revoke ID|LINK"
    static let summary = "End a live share now; its card is dropped at once."

    struct Output: Encodable {
        let id: String
        let status: String
        let expiredAt: String
        let reason: String
    }

    static let options: [OptionSpec] = []

    static func run(_ arguments: inout Arguments, _ context: Context) throws -> Int32 {
        let target = try arguments.positional("share id or link")
        try arguments.finish()
        let store = try context.openStore()
        defer { store.close() }
        let name = try ShareGetCommand.recordName(target, store: store)
        let expired = try store.revoke(name)
        let output = Output(id: "\(name)", status: "expired", expiredAt: expired.at.iso8601, reason: "\(expired.reason)")
        if context.json { try context.printJSON(output); return ExitCode.success }
        context.print("revoked \(output.id) at \(output.expiredAt)")
        return ExitCode.success
    }
}
