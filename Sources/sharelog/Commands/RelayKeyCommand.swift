import ShareLog
import ShareSync

struct RelayKeyCommand: Command {
    static let name = "relay-key"
    static let synopsis = "relay-key FILE"
    static let summary = "Write a new stream key to FILE (mode 0600; never overwrites) for 'relay --stream-key'. Copy it to every replica."

    static let options: [OptionSpec] = []

    static func run(_ arguments: inout Arguments, _ context: Context) throws -> Int32 {
        let path = try arguments.positional("key file")
        try arguments.finish()
        let key: StreamKey
        do { key = try StreamKeyring.create(at: path, now: context.clock.now()) } catch { throw CLIError.failure("\(error)") }
        // The key's hour as a time (the file itself counts hours since 1970).
        let hour = Timestamp(milliseconds: key.hour * 3_600_000).iso8601
        if context.json { try context.printJSON(["keyFile": path, "hour": hour]); return ExitCode.success }
        context.print("wrote a new stream key to \(path) (mode 0600); copy it to every replica of the stream over a channel you trust")
        return ExitCode.success
    }
}
