import Foundation

extension CLI {
    /// `run` with `extra` added to the child's otherwise empty environment
    /// (for example `TZ`), so a test can show that a variable the user may
    /// have set changes nothing the CLI reads or prints. Passes `--now`
    /// exactly as `run` does.
    func run(environment extra: [String: String], _ arguments: String..., input: Data? = nil) throws -> Result {
        try run(environment: extra, arguments: arguments, input: input)
    }

    /// `run(environment:)` with the arguments as an array.
    func run(environment extra: [String: String] = [:], arguments: [String], input: Data? = nil) throws -> Result {
        let process = Process()
        process.executableURL = CLI.executable
        let clock = arguments.contains("--now") ? [] : ["--now", now]
        process.arguments = ["--store", store] + clock + arguments
        process.environment = CLI.inheritedEnvironment.merging(extra) { _, added in added }
        let output = Pipe(), error = Pipe(), stdin = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(input) }
        try stdin.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, output: String(decoding: out, as: UTF8.self), error: String(decoding: err, as: UTF8.self))
    }

    /// The bytes of the store's `data.mdb`, to show that a refused command
    /// wrote nothing.
    func dataFile() throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: (store as NSString).appendingPathComponent("data.mdb")))
    }

    /// The JSON objects of a `--json` stream, one per line (`log --json`).
    static func jsonLines(_ output: String) -> [[String: Any]] {
        output.split(separator: "\n").map { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
        }
    }
}
