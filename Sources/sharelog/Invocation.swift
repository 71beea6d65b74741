/// What the command line asks for: help, the version, or a command with
/// its arguments, split by the options that command declares.
enum Invocation {
    /// `sharelog help [COMMAND]`, `sharelog [COMMAND] --help`, or nothing at all.
    case help((any Command.Type)?)
    /// `sharelog --version`.
    case version
    case run(any Command.Type, Arguments)

    /// Reads the command's words (the first positional arguments, told
    /// from options' values by every declared option), then splits the
    /// whole line again by the options of that command and the common ones.
    ///
    /// - Throws: `CLIError.usage` for an unknown command or option.
    init(_ tokens: [String]) throws(CLIError) {
        if tokens.isEmpty {
            self = .help(nil)
            return
        }
        var scan = try Arguments(tokens, options: everyOption)
        if scan.flag("version") {
            self = .version
            return
        }
        let asksHelp = scan.flag("help")
        var words: [String] = []
        while let word = scan.optionalPositional() {
            words.append(word)
            if !["share", "clip", "token", "help"].contains(word) || words.count == 3 { break }
        }
        if words.first == "help" {
            words.removeFirst()
            self = .help(words.isEmpty ? nil : try Self.command(named: words))
            return
        }
        guard !words.isEmpty else {
            if asksHelp {
                self = .help(nil)
                return
            }
            throw .usage("missing command")
        }
        let command = try Self.command(named: words)
        if asksHelp {
            self = .help(command)
            return
        }
        var arguments = try Arguments(tokens, options: OptionSpec.common + command.options, command: command.name, elsewhere: everyOption)
        for _ in words { _ = arguments.optionalPositional() }
        self = .run(command, arguments)
    }

    private static func command(named words: [String]) throws(CLIError) -> any Command.Type {
        let name = words.joined(separator: " ")
        if let command = commands.first(where: { $0.name == name }) { return command }
        switch words.first {
        case "share"?: throw .usage(words.count == 1 ? "missing share subcommand (create, get or revoke)" : "unknown command '\(name)'")
        case "clip"?: throw .usage(words.count == 1 ? "missing clip subcommand (open or last)" : "unknown command '\(name)'")
        case "token"?: throw .usage(words.count == 1 ? "missing token subcommand (create, list, revoke or import)" : "unknown command '\(name)'")
        default: throw .usage("unknown command '\(name)'")
        }
    }
}
