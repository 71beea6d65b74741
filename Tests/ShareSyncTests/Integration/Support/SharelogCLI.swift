import Foundation
import TestSupport

/// Runs the built `sharelog` binary on one store, as a user would, at a
/// fixed time: every run passes `--store` and `--now`, so no run reads the
/// real clock. Processes start through `Subprocess`, each under a deadline.
struct SharelogCLI {
    /// The `sharelog` executable SwiftPM built beside the test bundle.
    static let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        .deletingLastPathComponent().appendingPathComponent("sharelog").path

    /// The child's whole environment: empty but for the clock shift that
    /// `Scripts/test` applies with `faketime`.
    static let environment = ProcessInfo.processInfo.environment.filter { name, _ in
        name == "LD_PRELOAD" || name.hasPrefix("FAKETIME")
    }

    let store: String
    var now: String

    init(store: String, now: String) {
        self.store = store
        self.now = now
    }

    /// Every run's arguments: the store and the time, then `arguments`.
    func commandLine(_ arguments: [String]) -> [String] {
        ["--store", store, "--now", now] + arguments
    }

    /// Runs `sharelog arguments…` to its end; one still running at
    /// `timeout` is killed and the call throws.
    func run(_ arguments: String..., input: [UInt8] = [], timeout: Duration = .seconds(60)) throws -> CLIResult {
        try run(arguments: arguments, input: input, timeout: timeout)
    }

    func run(arguments: [String], input: [UInt8] = [], timeout: Duration = .seconds(60)) throws -> CLIResult {
        Self.result(of: try Subprocess.run(Self.executable, commandLine(arguments), environment: Self.environment, input: input, timeout: timeout))
    }

    /// Starts `sharelog arguments…` and returns at once, for processes a
    /// test runs side by side or in the background.
    func start(_ arguments: [String]) throws -> Subprocess {
        try Subprocess(Self.executable, commandLine(arguments), environment: Self.environment)
    }

    /// Runs each command line, at most `lanes` processes at a time, and
    /// returns their results in order.
    static func runAll(_ commands: [(cli: SharelogCLI, arguments: [String])], lanes: Int = 4) throws -> [CLIResult] {
        var results: [CLIResult] = []
        var start = 0
        while start < commands.count {
            let chunk = commands[start..<min(start + lanes, commands.count)]
            let running = try chunk.map { try $0.cli.start($0.arguments) }
            for process in running { results.append(result(of: try process.finish(timeout: .seconds(60)))) }
            start += chunk.count
        }
        return results
    }

    static func result(of outcome: Subprocess.Outcome) -> CLIResult {
        CLIResult(
            status: outcome.status, signaled: outcome.signaled, output: outcome.output,
            error: String(decoding: outcome.error, as: UTF8.self))
    }
}
