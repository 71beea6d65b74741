// sharelog: the command-line face of a ShareLog store. It parses arguments,
// calls the library and prints; docs/CLI.md documents every command.
import Foundation
import ShareLog

func fail(_ message: String, code: Int32) -> Never {
    FileHandle.standardError.write(Data("sharelog: \(message)\n".utf8))
    exit(code)
}

var arguments = Arguments(CommandLine.arguments.dropFirst())
if arguments.flag("help") || CommandLine.arguments.count == 1 {
    print(Help.text)
    exit(ExitCode.success)
}
do {
    let context = try Context(&arguments)
    var words = [try arguments.positional("command")]
    if words[0] == "help" {
        print(Help.text)
        exit(ExitCode.success)
    }
    if words[0] == "share" { words.append(try arguments.positional("share subcommand (create, get or revoke)")) }
    if words[0] == "clip" { words.append(try arguments.positional("clip subcommand (open or last)")) }
    let name = words.joined(separator: " ")
    guard let command = commands.first(where: { $0.name == name }) else {
        throw CLIError.usage("unknown command '\(name)'")
    }
    exit(try command.run(&arguments, context))
} catch {
    fail("\(error)", code: ExitCode.of(error))
}
