import Foundation
import Glibc
import TestSupport

/// A `sharelog relay` process on one store: started, watched through its
/// standard error, and stopped with SIGTERM (SIGKILL at a deadline), or
/// killed outright as a crash would.
///
/// `init` returns once the relay has caught up with the stream and says it
/// publishes. It logs a status line every 5 seconds, so a test that runs it
/// for minutes without reading still stays far below a pipe's 64 KiB. Not
/// thread-safe: the test's thread drives it, like its `Subprocess`.
final class RelayProcess {
    let pid: pid_t
    private let process: Subprocess
    private var outcome: CLIResult?

    /// Starts `sharelog relay --json --nats nats --stream-key streamKey
    /// extra…` on `cli`'s store and waits until it has caught up.
    init(_ cli: SharelogCLI, nats: String, streamKey: String, extra: [String] = [], timeout: Duration = .seconds(60)) throws {
        let process = try cli.start(["--json", "relay", "--nats", nats, "--stream-key", streamKey] + extra)
        try Deadline.block(until: "sharelog relay on \(cli.store) catches up with the stream", timeout: timeout, every: .milliseconds(5)) {
            _ = process.readOutput(waitingAtMost: 5)
            return Self.lines(of: process).contains { $0.hasPrefix("sharelog: caught up with stream") } || !process.isRunning
        }
        guard process.isRunning else {
            let ended = CLIResult(try process.finish(timeout: .seconds(10)))
            throw HarnessFailure.endedEarly("sharelog relay on \(cli.store)", before: "it caught up", log: ended.error)
        }
        self.process = process
        pid = process.pid
    }

    deinit { _ = try? stop() }

    private static func lines(of process: Subprocess) -> [String] {
        String(decoding: process.errorOutput, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// Every line it has written to standard error so far that this side read.
    var lines: [String] {
        _ = process.readOutput(waitingAtMost: 0)
        return Self.lines(of: process)
    }

    /// Stops it with SIGTERM and returns how it ended, with all it printed
    /// (its `--json` totals on standard output); SIGKILL, and a thrown
    /// `DeadlineExceeded`, when it still runs after `timeout`.
    @discardableResult
    func stop(timeout: Duration = .seconds(30)) throws -> CLIResult {
        if let outcome { return outcome }
        if process.isRunning { Glibc.kill(process.pid, SIGTERM) }
        let ended = CLIResult(try process.finish(timeout: timeout))
        outcome = ended
        return ended
    }

    /// SIGKILL, as a crash would; reaps it.
    func kill() throws {
        process.kill()
        outcome = CLIResult(try process.finish(timeout: .seconds(30)))
    }
}
