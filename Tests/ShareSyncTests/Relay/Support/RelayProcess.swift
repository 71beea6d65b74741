import Foundation
import Glibc
import TestSupport

/// A `sharelog relay` process on one store: started, watched through its
/// standard error, and stopped with SIGTERM (SIGKILL at a deadline), or
/// killed outright as a crash would (`WatchedProcess`).
///
/// `init` returns once the relay has caught up with the stream and says it
/// publishes. It logs a status line every 5 seconds, so a test that runs it
/// for minutes without reading still stays far below a pipe's 64 KiB. Not
/// thread-safe: the test's thread drives it, like its `Subprocess`.
final class RelayProcess {
    var pid: pid_t { process.pid }
    private let process: WatchedProcess

    /// Starts `sharelog relay --json --nats nats --stream-key streamKey
    /// extra…` on `cli`'s store and waits until it has caught up.
    init(_ cli: SharelogCLI, nats: String, streamKey: String, extra: [String] = [], timeout: Duration = .seconds(60)) throws {
        process = try WatchedProcess(
            cli, ["--json", "relay", "--nats", nats, "--stream-key", streamKey] + extra, what: "sharelog relay on \(cli.store)",
            readiness: "catches up with the stream", timeout: timeout) { $0.hasPrefix("sharelog: caught up with stream") }
    }

    /// Every line it has written to standard error so far.
    var lines: [String] {
        process.pump(waitingAtMost: 0)
        return process.lines
    }

    /// Stops it with SIGTERM and returns how it ended, with all it printed
    /// (its `--json` totals on standard output); SIGKILL, and a thrown
    /// `DeadlineExceeded`, when it still runs after `timeout`.
    @discardableResult
    func stop(timeout: Duration = .seconds(30)) throws -> CLIResult { try process.stop(timeout: timeout) }

    /// SIGKILL, as a crash would; reaps it.
    func kill() throws { try process.kill() }
}
