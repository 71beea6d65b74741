import Foundation
import Glibc
import TestSupport

/// A child process a test drives while it runs: its standard output is read
/// line by line, every wait with a deadline; its standard error is kept for
/// failure messages. A `Subprocess`, so it works under libfaketime too.
///
/// A watchdog kills the child with SIGKILL once `lifetime` has passed, so a
/// child that hangs fails the test instead of hanging CI; `stop()` (also
/// run on deinit, so on every path out of a test) kills and reaps it.
final class ChildProcess {
    let name: String
    private let process: Subprocess
    private let watchdog: Watchdog
    private var pending: [UInt8] = []
    private var outputEnded = false

    /// The child ended, or said something the test cannot go on from.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Starts `executable arguments…` with this process's environment and
    /// an empty standard input.
    init(_ executable: String, _ arguments: [String], lifetime: Duration = .seconds(240)) throws {
        name = (executable as NSString).lastPathComponent
        process = try Subprocess(executable, arguments, environment: ProcessInfo.processInfo.environment)
        watchdog = Watchdog(killing: process.pid, named: name, after: lifetime)
    }

    deinit { stop() }

    /// Whether the child has exited (by itself or killed).
    var hasExited: Bool { !process.isRunning }

    /// What the child wrote to standard error so far.
    var errorOutput: String { String(decoding: process.errorOutput, as: UTF8.self) }

    /// How the child ended, for messages; call once it has.
    var ending: String {
        let how = process.termination.map { $0.signaled ? "was killed by signal \($0.status)" : "exited with status \($0.status)" }
            ?? "has not ended"
        let watchdog = watchdog.hasFired ? " (by the watchdog: it outlived its deadline)" : ""
        return "\(name) \(how)\(watchdog); stderr: \(errorOutput)"
    }

    /// The child's exit status, once it exited by itself.
    var exitStatus: Int32? {
        guard !process.isRunning, let termination = process.termination, !termination.signaled else { return nil }
        return termination.status
    }

    /// The complete lines the child has written that were not read yet,
    /// without waiting.
    func availableLines() -> [String] {
        var lines = takeLines()
        while poll(timeout: 0) { lines += takeLines() }
        return lines
    }

    /// The next line, waiting at most `timeout` for it.
    ///
    /// - Throws: `DeadlineExceeded` when none comes in time; `Failure` when
    ///   the child closes its output (it ended) first.
    func nextLine(until what: String, timeout: Duration = .seconds(60)) throws -> String {
        let deadline = Deadline(what, timeout: timeout)
        var lines = takeLines(limit: 1)
        while lines.isEmpty {
            if outputEnded { throw Failure(description: "waiting until \(what): \(finish())") }
            try deadline.check()
            _ = poll(timeout: 50)
            lines = takeLines(limit: 1)
        }
        return lines[0]
    }

    /// Waits for the child to exit by itself, at most `timeout`.
    func waitForExit(timeout: Duration = .seconds(60)) throws {
        try Deadline.block(until: "\(name) exits", timeout: timeout, every: .milliseconds(10)) { !process.isRunning }
    }

    /// Kills the child with SIGKILL if it still runs, reaps it, and returns
    /// the complete lines it wrote that were not read yet.
    @discardableResult
    func stop() -> [String] {
        watchdog.disarm()
        process.kill()
        // A killed child is reaped within moments; a deadline keeps a child
        // stuck in the kernel from hanging the test.
        try? Deadline.block(until: "\(name) is reaped", timeout: .seconds(30), every: .milliseconds(2)) { !process.isRunning }
        // Dead and reaped: what it wrote is in the pipe.
        let lines = availableLines()
        outputEnded = true
        return lines
    }

    /// Stops the child and says how it ended.
    private func finish() -> String {
        stop()
        return ending
    }

    /// Waits up to `timeout` milliseconds for output and reads what there
    /// is with one `read`. Returns false when nothing came or output ended.
    private func poll(timeout: Int32) -> Bool {
        guard !outputEnded else { return false }
        guard let bytes = process.readOutput(waitingAtMost: timeout) else {
            outputEnded = true
            return false
        }
        pending.append(contentsOf: bytes)
        return !bytes.isEmpty
    }

    private func takeLines(limit: Int = .max) -> [String] {
        var lines: [String] = []
        while lines.count < limit, let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(String(decoding: pending[..<newline], as: UTF8.self))
            pending.removeSubrange(...newline)
        }
        return lines
    }
}
