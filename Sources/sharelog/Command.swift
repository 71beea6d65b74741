/// One `sharelog` subcommand.
///
/// `run` reads its own options from `arguments`, calls `finish()` before
/// touching the store (so a usage error writes nothing), does its work
/// through the ShareLog library and prints; it returns the exit code.
protocol Command: Sendable {
    /// The words that select it, e.g. `share create`.
    static var name: String { get }
    /// Its arguments and options, as help and docs/CLI.md show them; it
    /// names exactly the options in `options` that are not hidden.
    static var synopsis: String { get }
    /// One line on what it does.
    static var summary: String { get }
    /// The options it takes besides the common ones (`OptionSpec.common`):
    /// the parser reads the command line by them.
    static var options: [OptionSpec] { get }
    static func run(_ arguments: inout Arguments, _ context: Context) throws -> Int32
}

/// Every command, in the order help lists them (docs/CLI.md's order).
let commands: [any Command.Type] = [
    InitCommand.self, ShareCreateCommand.self, ShareGetCommand.self, ShareRevokeCommand.self,
    SweepCommand.self, CompactCommand.self, VerifyCommand.self, StatsCommand.self, LogCommand.self, UpgradeCommand.self, TrimCommand.self, MaintainCommand.self, RenewIdentityCommand.self,
    BackupCommand.self, RestoreCommand.self,
    TokenCreateCommand.self, TokenListCommand.self, TokenRevokeCommand.self, TokenImportCommand.self,
    KeygenCommand.self, ServeCommand.self, SyncCommand.self, HTTPCommand.self, PeersCommand.self, RelayCommand.self, RelayKeyCommand.self,
    ClipOpenCommand.self, ClipLastCommand.self, HandoffCommand.self, DemoCommand.self,
]

/// Every option any command declares, the common ones included, by name:
/// how the command's words are told from options' values before the
/// command is known. A name means the same kind of option everywhere (a
/// test holds it).
let everyOption: [OptionSpec] = OptionSpec.common + commands.flatMap { $0.options }
