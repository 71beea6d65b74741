import Foundation
import TestSupport

/// Runs the built `sharelog` binary on one store, as a user would, at a
/// fixed time: every run passes `--store` and `--now`, so nothing reads
/// the real clock.
struct FaultCLI {
    static let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        .deletingLastPathComponent().appendingPathComponent("sharelog").path

    /// The time every command acts at: an hour after `FaultStore.created`,
    /// while the stores' shares are live.
    static let now = "2026-12-01T11:00:00Z"

    /// The child's environment: empty but for the clock shift `Scripts/test`
    /// applies with faketime.
    static let environment = ProcessInfo.processInfo.environment.filter { name, _ in
        name == "LD_PRELOAD" || name.hasPrefix("FAKETIME")
    }

    let store: String

    struct Result {
        let status: Int32
        let output: String
        let error: String

        /// The output as one JSON object; empty when it is not one.
        var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(output.utf8))) as? [String: Any] ?? [:]
        }

        /// The output as one JSON array of objects (`peers --json`).
        var jsonArray: [[String: Any]] {
            (try? JSONSerialization.jsonObject(with: Data(output.utf8))) as? [[String: Any]] ?? []
        }

        /// The output as one JSON value per line (`log --json`).
        var jsonLines: [[String: Any]] {
            output.split(separator: "\n").map { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] ?? [:] }
        }
    }

    /// The arguments of `arguments` on this store, for `Subprocess`.
    func commandLine(_ arguments: [String]) -> [String] {
        ["--store", store, "--now", Self.now] + arguments
    }

    /// Runs `sharelog arguments…` to its end, killed after `timeout`.
    func run(_ arguments: String..., input: [UInt8] = [], timeout: Duration = .seconds(120)) throws -> Result {
        try run(arguments: arguments, input: input, timeout: timeout)
    }

    /// `run` with the arguments as an array.
    func run(arguments: [String], input: [UInt8] = [], timeout: Duration = .seconds(120)) throws -> Result {
        let outcome = try Subprocess.run(Self.executable, commandLine(arguments), environment: Self.environment, input: input, timeout: timeout)
        return Result(
            status: outcome.signaled ? -outcome.status : outcome.status, output: String(decoding: outcome.output, as: UTF8.self),
            error: String(decoding: outcome.error, as: UTF8.self))
    }

    /// Starts `sharelog arguments…` and returns at once.
    func start(_ arguments: [String]) throws -> Subprocess {
        try Subprocess(Self.executable, commandLine(arguments), environment: Self.environment)
    }

    /// `stats --json`'s event count.
    func eventCount() throws -> Int {
        let stats = try run("stats", "--json")
        guard stats.status == 0, let events = stats.json["events"] as? Int else { throw FaultCLIError(command: "stats", result: stats) }
        return events
    }

    /// `stats --json`'s replica id.
    func replicaID() throws -> String {
        let stats = try run("stats", "--json")
        guard stats.status == 0, let replica = stats.json["replicaID"] as? String else { throw FaultCLIError(command: "stats", result: stats) }
        return replica
    }

    /// `stats --json`'s last log position.
    func lastPosition() throws -> UInt64 {
        let stats = try run("stats", "--json")
        guard stats.status == 0, let position = stats.json["lastPosition"] as? Int else { throw FaultCLIError(command: "stats", result: stats) }
        return UInt64(position)
    }

    /// The event ids of the log in log order, as `origin:counter`.
    func logIDs() throws -> [String] {
        let log = try run("log", "--json")
        guard log.status == 0 else { throw FaultCLIError(command: "log", result: log) }
        return log.jsonLines.map { "\($0["origin"] as? String ?? "?"):\($0["originCounter"] as? Int ?? -1)" }
    }

    /// `verify`'s exit status: 0 when the projections match the log.
    func verify() throws -> Int32 { try run("verify").status }
}

/// A command a test relies on to read a store did not succeed.
struct FaultCLIError: Error, CustomStringConvertible {
    let command: String
    let result: FaultCLI.Result
    var description: String { "sharelog \(command) exited \(result.status): \(result.error)" }
}
