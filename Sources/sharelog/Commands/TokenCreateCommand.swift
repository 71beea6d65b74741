import ShareHTTP
import ShareLog

struct TokenCreateCommand: Command {
    static let name = "token create"
    static let synopsis = "token create --name NAME [--scope upload,revoke,read] [--expires 90d|never]"
    static let summary = "Make a bearer token for the gateway's write API; print it once (the store keeps only its hash)."

    static let options: [OptionSpec] = TokenOptions.specs

    static func run(_ arguments: inout Arguments, _ context: Context) throws -> Int32 {
        let given = try TokenOptions(&arguments, command: Self.name)
        try arguments.finish()
        let now = context.clock.now()
        let token = BearerToken.generate()
        let stored = try given.token(id: token.id, secretHash: token.secretHash, at: now)
        let store = try context.openStore()
        defer { store.close() }
        try store.addToken(stored)
        let output = TokenOutput(stored, token: token.text)
        if context.json { try context.printJSON(output); return ExitCode.success }
        context.print("token:   \(token.text)")
        context.print("name:    \(stored.name)")
        context.print("scopes:  \(stored.scopes)")
        context.print("expires: \(output.expiresAt ?? "never")")
        context.print("This is the only time the token is shown: the store keeps only its hash.")
        return ExitCode.success
    }
}
