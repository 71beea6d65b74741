import Foundation

/// An error that ends the program, as standard error shows it: one line,
/// `sharelog: <what went wrong>; <what to do>`, or with `--json` one JSON
/// object, `{"code":"usage","exitCode":2,"message":"…"}` (docs/CLI.md,
/// "Exit codes"). The code names the exit code; the message is the line's
/// text without the `sharelog: ` prefix.
struct ErrorReport: Encodable {
    let code: String
    let exitCode: Int32
    let message: String

    init(_ error: any Error) {
        exitCode = ExitCode.of(error)
        code = ExitCode.name(of: exitCode)
        message = "\(error)"
    }

    func write(json: Bool) {
        let line: String
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            line = (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? #"{"code":"failure","exitCode":1}"#
        } else {
            line = "sharelog: \(message)"
        }
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
