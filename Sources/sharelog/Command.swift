/// One `sharelog` subcommand.
///
/// `run` reads its own options from `arguments`, calls `finish()` before
/// touching the store (so a usage error writes nothing), does its work
/// through the ShareLog library and prints; it returns the exit code.
protocol Command: Sendable {
    /// The words that select it, e.g. `share create`.
    static var name: String { get }
    /// Its arguments and options, for help.
    static var synopsis: String { get }
    /// One line on what it does.
    static var summary: String { get }
    static func run(_ arguments: inout Arguments, _ context: Context) throws -> Int32
}

/// Every command, in the order help lists them.
let commands: [any Command.Type] = [
    InitCommand.self, ShareCreateCommand.self, ShareGetCommand.self, ShareRevokeCommand.self,
    SweepCommand.self, CompactCommand.self, VerifyCommand.self, StatsCommand.self, LogCommand.self,
    UpgradeCommand.self, TrimCommand.self, ServeCommand.self, SyncCommand.self, PeersCommand.self, KeygenCommand.self, RelayCommand.self, RelayKeyCommand.self,
    HTTPCommand.self,
    ClipOpenCommand.self, ClipLastCommand.self, HandoffCommand.self, DemoCommand.self,
]
