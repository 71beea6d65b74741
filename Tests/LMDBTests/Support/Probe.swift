import Foundation
import Glibc
import TestSupport

/// Runs the `lmdb-probe` executable, a second process for multi-process tests.
struct Probe {
    /// `lmdb-probe` sits next to the test bundle in the build directory.
    static let executable: URL = {
        let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return testBinary.deletingLastPathComponent().appendingPathComponent("lmdb-probe")
    }()

    let process: Process
    private let output: FileHandle
    /// Kills the probe if it outlives its test, so a hang fails instead.
    private let watchdog: Watchdog

    /// Starts `lmdb-probe arguments…`.
    init(_ arguments: String...) throws { try self.init(arguments) }

    init(_ arguments: [String]) throws {
        process = Process()
        process.executableURL = Probe.executable
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        output = pipe.fileHandleForReading
        try process.run()
        watchdog = Watchdog(killing: process.processIdentifier, named: "lmdb-probe \(arguments.joined(separator: " "))")
    }

    /// Reads one line of the probe's output; nil at end of output.
    func readLine() -> String? {
        var line = Data()
        while true {
            let byte = output.readData(ofLength: 1)
            if byte.isEmpty { return line.isEmpty ? nil : String(decoding: line, as: UTF8.self) }
            if byte.first == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
            line.append(byte)
        }
    }

    /// Kills the probe with SIGKILL, as a crash would, and reaps it.
    func kill() {
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        watchdog.disarm()
    }

    /// Waits for the probe to exit and returns its last line of output.
    func finish() -> (status: Int32, lastLine: String?) {
        var last: String?
        while let line = readLine() { last = line }
        process.waitUntilExit()
        watchdog.disarm()
        return (process.terminationStatus, last)
    }

    /// Runs a probe to completion.
    static func run(_ arguments: String...) throws -> (status: Int32, lastLine: String?) {
        try Probe(arguments).finish()
    }
}
