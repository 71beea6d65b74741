import ShareLog

struct TokenRevokeCommand: Command {
    static let name = "token revoke"
    static let synopsis = "token revoke NAME"
    static let summary = "Revoke a bearer token now, for every process that has the store open."

    struct Output: Encodable {
        let name: String
        let revokedAt: String
        /// True when it was revoked before; its first time is kept.
        let alreadyRevoked: Bool
    }

    static let options: [OptionSpec] = []

    static func run(_ arguments: inout Arguments, _ context: Context) throws -> Int32 {
        let name = try arguments.positional("token name")
        try arguments.finish()
        let store = try context.openStore()
        defer { store.close() }
        let revocation = try store.revokeToken(named: name, at: context.clock.now())
        let revokedAt = revocation.token.revokedAt?.iso8601 ?? ""
        let output = Output(name: name, revokedAt: revokedAt, alreadyRevoked: revocation.wasAlreadyRevoked)
        if context.json { try context.printJSON(output); return ExitCode.success }
        context.print(revocation.wasAlreadyRevoked ? "token \(name) was already revoked at \(revokedAt); nothing changed" : "revoked token \(name) at \(revokedAt)")
        return ExitCode.success
    }
}
