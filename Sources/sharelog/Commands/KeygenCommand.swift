import ShareSync

struct KeygenCommand: Command {
    static let name = "keygen"
    static let synopsis = "keygen FILE"
    static let summary = "Write a new shared sync key to FILE (mode 0600; never overwrites). Give both sides the same file."

    static let options: [OptionSpec] = []

    static func run(_ arguments: inout Arguments, _ context: Context) throws -> Int32 {
        let path = try arguments.positional("key file")
        try arguments.finish()
        // A file that cannot be written is a failure (exit 1), as everywhere.
        do { try SyncKey.generate().write(to: path) } catch { throw CLIError.failure("\(error)") }
        if context.json { try context.printJSON(["keyFile": path]); return ExitCode.success }
        context.print("wrote a new sync key to \(path) (mode 0600); copy it to the other replica over a channel you trust")
        return ExitCode.success
    }
}
