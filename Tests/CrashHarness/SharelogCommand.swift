import Foundation
import TestSupport

/// Runs the `sharelog` executable on one store at the pair's fixed time:
/// every command line starts with `--store` and `--now`, so no run reads
/// the real clock. Children get this process's environment (libfaketime's
/// shift included) and start through `Subprocess`, and log text lines,
/// which the harness reads (`--log-format text`).
struct SharelogCommand {
    let executable: URL
    let store: String
    /// The `--now` of every run.
    let now: String

    /// Starts `sharelog --store … --now … arguments…` and returns at once.
    func start(_ arguments: [String]) throws -> Subprocess {
        try Subprocess(executable.path, ["--store", store, "--now", now, "--log-format", "text"] + arguments,
                       environment: ProcessInfo.processInfo.environment)
    }

    /// Runs `sharelog … arguments…` to its end; one still running at
    /// `timeout` is killed and the call throws `DeadlineExceeded`.
    func run(_ arguments: [String], timeout: Duration) throws -> Subprocess.Outcome {
        try start(arguments).finish(timeout: timeout)
    }
}
