// sharelog: the command-line face of a ShareLog store. It parses arguments,
// calls the library and prints; docs/CLI.md documents every command.
import Foundation
import ShareLog

let tokens = Array(CommandLine.arguments.dropFirst())
/// `--json` anywhere asks for errors as JSON too, even when the command
/// line cannot be parsed.
let jsonErrors = tokens.contains("--json")

do {
    let invocation = try Invocation(tokens)
    switch invocation {
    case .help(let command):
        print(command.map(Help.text(for:)) ?? Help.text)
        exit(ExitCode.success)
    case .version:
        print(Help.version(json: jsonErrors))
        exit(ExitCode.success)
    case .run(let command, var arguments):
        let context = try Context(&arguments)
        ProcessLog.use(context.logFormat)
        let status = try command.run(&arguments, context)
        ProcessLog.flush()
        exit(status)
    }
} catch {
    // The log's lines come before the error that ends the command.
    ProcessLog.flush()
    ErrorReport(error).write(json: jsonErrors)
    exit(ExitCode.of(error))
}
