import Foundation
import Glibc
import TestSupport

/// A child process a test drives while it runs: its standard output is read
/// line by line, every wait with a deadline; its standard error goes to a
/// file, for failure messages.
///
/// A watchdog kills the child with SIGKILL once `lifetime` has passed, so a
/// child that hangs fails the test instead of hanging CI; `stop()` (also
/// run on deinit, so on every path out of a test) kills and reaps it.
final class ChildProcess {
    let name: String
    private let process = Process()
    private let output: FileHandle
    private let errorPath: String
    private let watchdog: DispatchWorkItem
    private let watchdogFired = WatchdogFlag()
    private var pending: [UInt8] = []
    private var outputEnded = false

    /// The child ended, or said something the test cannot go on from.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Starts `executable arguments…` with no standard input.
    init(_ executable: String, _ arguments: [String], lifetime: Duration = .seconds(240)) throws {
        name = (executable as NSString).lastPathComponent
        errorPath = (NSTemporaryDirectory() as NSString).appendingPathComponent("sharelog-child-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        let errorFile = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
        defer { try? errorFile.close() }
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = errorFile
        process.standardInput = FileHandle.nullDevice
        output = pipe.fileHandleForReading
        try process.run()
        try? pipe.fileHandleForWriting.close()
        // Runs once, unless stop() cancels it first. The process is only
        // killed while Foundation has not reaped it (isRunning), so the pid
        // is still the child's.
        watchdog = DispatchWorkItem { [process, watchdogFired] in
            guard process.isRunning else { return }
            watchdogFired.set()
            kill(process.processIdentifier, SIGKILL)
        }
        let seconds = Double(lifetime.components.seconds)
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: watchdog)
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: errorPath)
    }

    /// Whether the child has exited (by itself or killed).
    var hasExited: Bool { !process.isRunning }

    /// What the child wrote to standard error so far.
    var errorOutput: String {
        String(decoding: FileManager.default.contents(atPath: errorPath) ?? Data(), as: UTF8.self)
    }

    /// How the child ended, for messages; call once it has.
    var ending: String {
        let how = process.terminationReason == .uncaughtSignal
            ? "was killed by signal \(process.terminationStatus)" : "exited with status \(process.terminationStatus)"
        let watchdog = watchdogFired.isSet ? " (by the watchdog: it outlived its deadline)" : ""
        return "\(name) \(how)\(watchdog); stderr: \(errorOutput)"
    }

    /// The child's exit status, once it exited by itself.
    var exitStatus: Int32? {
        process.isRunning || process.terminationReason != .exit ? nil : process.terminationStatus
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
        watchdog.cancel()
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        // Dead and reaped: what it wrote is in the pipe. Another child may
        // hold a copy of the write end, so stop at the first empty poll.
        let lines = availableLines()
        try? output.close()
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
        var descriptor = pollfd(fd: output.fileDescriptor, events: Int16(POLLIN), revents: 0)
        guard Glibc.poll(&descriptor, 1, timeout) > 0 else { return false }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = buffer.withUnsafeMutableBytes { read(output.fileDescriptor, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { return true }
        guard count > 0 else {
            outputEnded = true
            return false
        }
        pending.append(contentsOf: buffer[..<count])
        return true
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
