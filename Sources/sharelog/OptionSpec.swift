/// One option, declared once: `Arguments` parses the command line by these
/// declarations, `sharelog help` and each command's `--help` list them,
/// and a test checks docs/CLI.md's synopses against them.
struct OptionSpec: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        /// Present or not: `--follow`.
        case flag
        /// One value, `--name VALUE` or `--name=VALUE`; the placeholder
        /// names it in help (`7d`, `FILE`).
        case value(String)
        /// One or more values up to the next option, `--only A B`; the
        /// option may repeat (`--only A --only B`).
        case values(String)
    }

    let name: String
    let kind: Kind
    /// One line on what it does, and its default.
    let help: String
    /// Left out of help and the synopses: test hooks (`--handshake-timeout`).
    var hidden = false

    static func flag(_ name: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, kind: .flag, help: help)
    }

    static func value(_ name: String, _ placeholder: String, _ help: String, hidden: Bool = false) -> OptionSpec {
        OptionSpec(name: name, kind: .value(placeholder), help: help, hidden: hidden)
    }

    static func values(_ name: String, _ placeholder: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, kind: .values(placeholder), help: help)
    }

    /// Whether the option takes a value after it.
    var takesValue: Bool { kind != .flag }

    /// `--ttl 7d`, `--only ID ...`, `--follow`: how help shows it.
    var usage: String {
        switch kind {
        case .flag: "--\(name)"
        case .value(let placeholder): "--\(name) \(placeholder)"
        case .values(let placeholder): "--\(name) \(placeholder) ..."
        }
    }

    /// The options every command takes (docs/CLI.md, "Options every command takes").
    static let common: [OptionSpec] = [
        .value("store", "PATH", "the store directory (default: $SHARELOG_STORE, else ./sharelog-data)"),
        .value("now", "ISO8601", "act as if it were this time (e.g. 2026-12-07T09:30:00Z)"),
        .value("now-file", "FILE", "act as if it were the time FILE holds, read whenever the time is needed (a test hook)", hidden: true),
        .value("domain", "D", "the App Clip link domain (default: $SHARELOG_DOMAIN, else cards.example.com)"),
        .flag("json", "print JSON (one object per line where output is a stream); errors too, on standard error"),
        .value("log-format", "json|text", "log lines on standard error as JSON objects or text (default: $SHARELOG_LOG_FORMAT, else text on a terminal, JSON otherwise)"),
        .flag("help", "print help: sharelog's, or a command's"),
        .flag("version", "print the formats this build reads and writes, and exit"),
    ]
}
