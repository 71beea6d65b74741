import ShareHTTP
import ShareLog

struct TokenCreateCommand: Command {
    static let name = "token create"
    static let synopsis = "token create --name NAME [--scope upload,revoke,read] [--expires 90d|never]"
    static let summary = "Make a bearer token for the gateway's write API; print it once (the store keeps only its hash)."

    struct Output: Encodable {
        let name: String
        let token: String
        let scopes: [String]
        let createdAt: String
        /// `null` for a token that never expires.
        let expiresAt: String?

        /// Every key, `expiresAt` as `null` for never (the synthesized
        /// encoding would leave it out).
        func encode(to encoder: any Encoder) throws {
            var values = encoder.container(keyedBy: CodingKeys.self)
            try values.encode(name, forKey: .name)
            try values.encode(token, forKey: .token)
            try values.encode(scopes, forKey: .scopes)
            try values.encode(createdAt, forKey: .createdAt)
            try values.encode(expiresAt, forKey: .expiresAt)
        }

        private enum CodingKeys: String, CodingKey { case name, token, scopes, createdAt, expiresAt }
    }

    /// How long a token lives unless `--expires` says otherwise.
    static let defaultExpiry = "90d"

    static let options: [OptionSpec] = [
        .value("name", "NAME", "the token's name, unique in the store: 1 to 64 of A-Z a-z 0-9 . _ -"),
        .value("scope", "upload,revoke,read", "what it may do, comma-separated (default: all three)"),
        .value("expires", "90d|never", "how long it lives: a whole number of s, m, h or d, or never (default: 90d)"),
    ]

    static func run(_ arguments: inout Arguments, _ context: Context) throws -> Int32 {
        guard let name = try arguments.option("name") else { throw CLIError.usage("token create needs --name NAME") }
        let scopeText = try arguments.option("scope")
        let expires = try arguments.option("expires") ?? Self.defaultExpiry
        try arguments.finish()
        guard StoredToken.isValidName(name) else {
            throw CLIError.invalidInput("--name '\(name)' is not 1 to 64 of the letters A-Z and a-z, the digits 0-9, '.', '_' and '-'")
        }
        let scopes = try scopeText.map(Self.scopes) ?? .all
        let lifetime = try Self.lifetime(expires)
        let store = try context.openStore()
        defer { store.close() }
        let now = context.clock.now()
        let token = BearerToken.generate()
        let stored = StoredToken(
            id: token.id, name: name, scopes: scopes, createdAt: now, expiresAt: lifetime.map { now.advanced(by: $0) },
            secretHash: token.secretHash)
        try store.addToken(stored)
        let output = Output(
            name: name, token: token.text, scopes: scopes.names, createdAt: now.iso8601, expiresAt: stored.expiresAt?.iso8601)
        if context.json { try context.printJSON(output); return ExitCode.success }
        context.print("token:   \(output.token)")
        context.print("name:    \(name)")
        context.print("scopes:  \(scopes)")
        context.print("expires: \(output.expiresAt ?? "never")")
        context.print("This is the only time the token is shown: the store keeps only its hash.")
        return ExitCode.success
    }

    /// `--scope`'s value.
    private static func scopes(_ text: String) throws -> TokenScopes {
        guard let scopes = TokenScopes(names: text) else {
            throw CLIError.invalidInput("--scope '\(text)' is not a comma-separated list of upload, revoke and read, each at most once")
        }
        return scopes
    }

    /// `--expires`'s value: nil for `never`, else a duration of at least a second.
    private static func lifetime(_ text: String) throws -> Duration? {
        if text == "never" { return nil }
        let duration = try TTL.parse(text, option: "expires")
        guard duration > .zero else { throw CLIError.invalidInput("--expires '\(text)' is not a duration after now, like 30d, or never") }
        return duration
    }
}
