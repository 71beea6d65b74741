import ShareHTTP
import ShareLog

/// `token import`: installs a token made by `token create` on another
/// replica, so the same token text works here too (docs/CLI.md, docs/HTTP.md
/// "Exactly once"). It never prints the secret, nor quotes the file.
struct TokenImportCommand: Command {
    static let name = "token import"
    static let synopsis = "token import --name NAME --token-file F [--scope upload,revoke,read] [--expires 90d|never]"
    static let summary = "Install a token made on another replica, so it works here too and a retried upload names the same share."

    static let options: [OptionSpec] =
        [TokenOptions.nameSpec, .value("token-file", "F", "the file holding the token ('token create' printed it), or - for standard input")]
        + TokenOptions.termSpecs

    static func run(_ arguments: inout Arguments, _ context: Context) throws -> Int32 {
        let given = try TokenOptions(&arguments, command: Self.name)
        guard let path = try arguments.option("token-file") else {
            throw CLIError.usage("token import needs --token-file F, a file holding the token")
        }
        try arguments.finish()
        let now = context.clock.now()
        let token = try TokenFile.read(path)
        let wanted = try given.token(id: token.id, secretHash: token.secretHash, at: now)
        let store = try context.openStore()
        defer { store.close() }
        let installed = try store.importToken(wanted)
        let kept = installed.token
        if context.json { try context.printJSON(TokenOutput(kept, alreadyInstalled: installed.wasAlreadyInstalled)); return ExitCode.success }
        let terms = "scopes \(kept.scopes), expires \(kept.expiresAt?.iso8601 ?? "never")"
        context.print(installed.wasAlreadyInstalled
            ? "token \(kept.name) was already installed (\(terms)); nothing was written"
            : "installed token \(kept.name): \(terms)")
        return ExitCode.success
    }
}
