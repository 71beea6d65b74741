import ShareLog

struct TokenListCommand: Command {
    static let name = "token list"
    static let synopsis = "token list"
    static let summary = "List the bearer tokens: name, scopes, creation, expiry, last use, revocation; never a secret."

    struct Output: Encodable {
        let name: String
        let id: String
        let scopes: [String]
        let createdAt: String
        /// `null`: never.
        let expiresAt: String?
        /// `null`: never used.
        let lastUsedAt: String?
        /// `null`: not revoked.
        let revokedAt: String?
        let revoked: Bool

        /// Every key, the times that are not there as `null` (the
        /// synthesized encoding would leave them out).
        func encode(to encoder: any Encoder) throws {
            var values = encoder.container(keyedBy: CodingKeys.self)
            try values.encode(name, forKey: .name)
            try values.encode(id, forKey: .id)
            try values.encode(scopes, forKey: .scopes)
            try values.encode(createdAt, forKey: .createdAt)
            try values.encode(expiresAt, forKey: .expiresAt)
            try values.encode(lastUsedAt, forKey: .lastUsedAt)
            try values.encode(revokedAt, forKey: .revokedAt)
            try values.encode(revoked, forKey: .revoked)
        }

        private enum CodingKeys: String, CodingKey { case name, id, scopes, createdAt, expiresAt, lastUsedAt, revokedAt, revoked }
    }

    static let options: [OptionSpec] = []

    static func run(_ arguments: inout Arguments, _ context: Context) throws -> Int32 {
        try arguments.finish()
        let tokens = try context.openStoreToRead(for: Self.name).tokens().map {
            Output(
                name: $0.name, id: "\($0.id)", scopes: $0.scopes.names, createdAt: $0.createdAt.iso8601, expiresAt: $0.expiresAt?.iso8601,
                lastUsedAt: $0.lastUsedAt?.iso8601, revokedAt: $0.revokedAt?.iso8601, revoked: $0.revokedAt != nil)
        }
        if context.json { try context.printJSON(tokens); return ExitCode.success }
        guard !tokens.isEmpty else {
            context.print("no tokens yet: 'sharelog token create --name NAME' makes one")
            return ExitCode.success
        }
        for token in tokens {
            let state = token.revokedAt.map { "revoked \($0)" } ?? "active"
            context.print("\(token.name)  scopes \(token.scopes.joined(separator: ","))  created \(token.createdAt)  "
                + "expires \(token.expiresAt ?? "never")  last used \(token.lastUsedAt ?? "never")  \(state)")
        }
        return ExitCode.success
    }
}
