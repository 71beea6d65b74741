import Foundation
import TestSupport

extension CLI {
    /// `run` with `extra` added to the child's otherwise empty environment
    /// (for example `TZ`), so a test can show that a variable the user may
    /// have set changes nothing the CLI reads or prints. Passes `--now`
    /// exactly as `run` does.
    func run(environment extra: [String: String], _ arguments: String..., input: Data? = nil) throws -> Result {
        try run(environment: extra, arguments: arguments, input: input)
    }

    /// `run(environment:)` with the arguments as an array: the one place a
    /// CLI test starts `sharelog`, through `Subprocess` (a run still going
    /// after its deadline is killed and throws).
    func run(environment extra: [String: String] = [:], arguments: [String], input: Data? = nil) throws -> Result {
        let clock = arguments.contains("--now") ? [] : ["--now", now]
        let outcome = try Subprocess.run(
            CLI.executable.path, ["--store", store] + clock + arguments,
            environment: CLI.inheritedEnvironment.merging(extra) { _, added in added }, input: input.map(Array.init) ?? [])
        return Result(
            status: outcome.status, output: String(decoding: outcome.output, as: UTF8.self),
            error: String(decoding: outcome.error, as: UTF8.self))
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
