import ShareLog

/// `--name`, `--scope` and `--expires`, as `token create` and `token
/// import` take them: declared, read and checked in one place, so the two
/// commands make the same `StoredToken` from the same command line.
///
/// Reading is two steps, as every command's: `init` takes the values
/// (a missing `--name` is a usage error there), the command calls
/// `Arguments.finish()`, and only then does `terms()` check them, so a
/// wrong command line is told as such before a wrong value.
struct TokenOptions {
    let name: String
    let scopeText: String?
    let expires: String

    /// How long a token lives unless `--expires` says otherwise.
    static let defaultExpiry = "90d"

    /// `--name`.
    static let nameSpec = OptionSpec.value("name", "NAME", "the token's name, unique in the store: 1 to 64 of A-Z a-z 0-9 . _ -")
    /// `--scope` and `--expires`, in the order the synopses give them.
    static let termSpecs: [OptionSpec] = [
        .value("scope", "upload,revoke,read", "what it may do, comma-separated (default: all three)"),
        .value("expires", "90d|never", "how long it lives: a whole number of s, m, h or d, or never (default: 90d)"),
    ]
    /// The three options, in the order the synopses give them.
    static let specs = [nameSpec] + termSpecs

    /// Takes the three options' values from `arguments`.
    ///
    /// - Throws: `CLIError.usage` ("`command` needs --name NAME") when
    ///   `--name` is missing, or an option given twice.
    init(_ arguments: inout Arguments, command: String) throws(CLIError) {
        guard let name = try arguments.option("name") else { throw CLIError.usage("\(command) needs --name NAME") }
        self.name = name
        scopeText = try arguments.option("scope")
        expires = try arguments.option("expires") ?? Self.defaultExpiry
    }

    /// The token `id` with `secretHash` would be, made at `now`: the
    /// scopes given (default all three), expiring `--expires` after `now`
    /// (nil: never).
    ///
    /// - Throws: `CLIError.invalidInput` for a name `StoredToken.isValidName`
    ///   refuses, a scope list `TokenScopes(names:)` refuses, or an expiry
    ///   that is neither `never` nor a duration of at least a second.
    func token(id: TokenID, secretHash: [UInt8], at now: Timestamp) throws -> StoredToken {
        guard StoredToken.isValidName(name) else {
            throw CLIError.invalidInput("--name '\(name)' is not 1 to 64 of the letters A-Z and a-z, the digits 0-9, '.', '_' and '-'")
        }
        let scopes = try scopeText.map(Self.scopes) ?? .all
        let lifetime = try Self.lifetime(expires)
        return StoredToken(
            id: id, name: name, scopes: scopes, createdAt: now, expiresAt: lifetime.map { now.advanced(by: $0) }, secretHash: secretHash)
    }

    /// `--scope`'s value.
    private static func scopes(_ text: String) throws(CLIError) -> TokenScopes {
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

/// What `token create` and `token import` print with `--json`: one object
/// with every key, `expiresAt` `null` for a token that never expires.
/// `token` (the secret's text) is there only for `token create`, which
/// shows it once; `alreadyInstalled` only for `token import`.
struct TokenOutput: Encodable {
    let name: String
    let token: String?
    let scopes: [String]
    let createdAt: String
    /// `null` for a token that never expires.
    let expiresAt: String?
    let alreadyInstalled: Bool?

    /// `stored` as printed, with `token` (create) or `alreadyInstalled` (import).
    init(_ stored: StoredToken, token: String? = nil, alreadyInstalled: Bool? = nil) {
        name = stored.name
        self.token = token
        scopes = stored.scopes.names
        createdAt = stored.createdAt.iso8601
        expiresAt = stored.expiresAt?.iso8601
        self.alreadyInstalled = alreadyInstalled
    }

    /// Every key, `expiresAt` as `null` for never (the synthesized
    /// encoding would leave it out); `token` and `alreadyInstalled` only
    /// when set.
    func encode(to encoder: any Encoder) throws {
        var values = encoder.container(keyedBy: CodingKeys.self)
        try values.encode(name, forKey: .name)
        try values.encodeIfPresent(token, forKey: .token)
        try values.encode(scopes, forKey: .scopes)
        try values.encode(createdAt, forKey: .createdAt)
        try values.encode(expiresAt, forKey: .expiresAt)
        try values.encodeIfPresent(alreadyInstalled, forKey: .alreadyInstalled)
    }

    private enum CodingKeys: String, CodingKey { case name, token, scopes, createdAt, expiresAt, alreadyInstalled }
}
