import Glibc

/// A long-running `sharelog` process that a test watches through its
/// standard error: started and waited for until a line says it is ready,
/// then stopped with SIGTERM (SIGKILL at a deadline) or killed outright as
/// a crash would. Once it has ended, every `stop` gives that first answer.
///
/// Its standard error is read only while the test waits on it (`pump`) and
/// when it stops: a process whose log goes unread must not write more than
/// its pipe holds in between. Not thread-safe: the test's thread drives it,
/// like its `Subprocess`.
public final class WatchedProcess {
    public let pid: pid_t
    private let process: Subprocess
    private var outcome: CLIResult?

    /// Starts `sharelog arguments…` on `cli`'s store and waits until a line
    /// of its standard error satisfies `isReady`.
    ///
    /// - Parameters:
    ///   - what: the process, in words (`sharelog serve --listen …`).
    ///   - readiness: what it does once ready, in words (`says where it serves`).
    /// - Throws: `HarnessFailure.endedEarly` when it exits first;
    ///   `DeadlineExceeded` after `timeout`.
    public init(_ cli: SharelogCLI, _ arguments: [String], what: String, readiness: String, timeout: Duration, isReady: (String) -> Bool) throws {
        let process = try cli.start(arguments)
        try Deadline.block(until: "\(what) \(readiness)", timeout: timeout, every: .milliseconds(5)) {
            _ = process.readOutput(waitingAtMost: 5)
            return Self.lines(of: process).contains(where: isReady) || !process.isRunning
        }
        guard process.isRunning else {
            let ended = CLIResult(try process.finish(timeout: .seconds(10)))
            throw HarnessFailure.endedEarly(what, before: "it \(readiness)", log: ended.error)
        }
        self.process = process
        pid = process.pid
    }

    deinit { _ = try? stop(timeout: .seconds(20)) }

    private static func lines(of process: Subprocess) -> [String] {
        String(decoding: process.errorOutput, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// Every line it has written to standard error and this side has read.
    public var lines: [String] { Self.lines(of: process) }

    /// Reads what it has written since, waiting at most `milliseconds`.
    public func pump(waitingAtMost milliseconds: Int32 = 5) { _ = process.readOutput(waitingAtMost: milliseconds) }

    /// Stops it with SIGTERM and returns how it ended, with all it printed;
    /// SIGKILL, and a thrown `DeadlineExceeded`, when it still runs after
    /// `timeout`.
    @discardableResult
    public func stop(timeout: Duration) throws -> CLIResult {
        if let outcome { return outcome }
        if process.isRunning { Glibc.kill(process.pid, SIGTERM) }
        let ended = CLIResult(try process.finish(timeout: timeout))
        outcome = ended
        return ended
    }

    /// SIGKILL, as a crash would; reaps it and reads the rest of its output.
    public func kill() throws {
        process.kill()
        outcome = CLIResult(try process.finish(timeout: .seconds(30)))
    }
}
