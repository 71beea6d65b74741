import Foundation
import Glibc

/// A crash-test writer running as a child process, and the lines it printed.
///
/// Not thread-safe: the runner drives every writer from one thread.
final class WriterProcess {
    let slot: Int
    private let process: Process
    private let output: FileHandle
    private var pending: [UInt8] = []
    private var finishedOutput = false

    /// Starts `executable arguments…` with its standard output on a pipe.
    init(executable: URL, arguments: [String], slot: Int) throws {
        self.slot = slot
        process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        output = pipe.fileHandleForReading
        try process.run()
    }

    var descriptor: Int32 { output.fileDescriptor }

    /// Whether the process has exited (by itself or killed).
    var hasExited: Bool { !process.isRunning }

    /// How the process ended, once it has.
    var status: String {
        process.terminationReason == .uncaughtSignal
            ? "killed by signal \(process.terminationStatus)" : "exited with status \(process.terminationStatus)"
    }

    /// Reads what the pipe holds now, at most one `read`, and returns the
    /// complete lines. Call when `poll` reports the descriptor readable.
    func readAvailable() -> [String] {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { return [] }
        if count <= 0 {
            finishedOutput = true
            return []
        }
        pending.append(contentsOf: buffer[..<count])
        return takeLines()
    }

    /// Whether the pipe has reached end of file.
    var outputClosed: Bool { finishedOutput }

    /// Kills the process with SIGKILL, as a crash would, reaps it, and
    /// returns the complete lines it printed that were not yet read. A
    /// partial last line (impossible with single small writes) is dropped.
    func kill() -> [String] {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        var lines: [String] = []
        // The writer is dead and reaped: everything it wrote is in the pipe.
        // Another child may hold a copy of the write end, so stop at the
        // first poll that finds nothing rather than waiting for end of file.
        var descriptor = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while !finishedOutput, poll(&descriptor, 1, 0) > 0 {
            lines += readAvailable()
        }
        try? output.close()
        return lines
    }

    private func takeLines() -> [String] {
        var lines: [String] = []
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(String(decoding: pending[..<newline], as: UTF8.self))
            pending.removeSubrange(...newline)
        }
        return lines
    }
}
