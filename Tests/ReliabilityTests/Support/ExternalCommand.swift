import Foundation
import TestSupport

/// Runs a program to completion and captures what it printed.
struct ExternalCommand {
    let status: Int32
    let output: String
    let error: String

    /// Runs `executable arguments…` with no standard input. Standard error
    /// goes to a file, so a program that writes much of it cannot block on a
    /// full pipe while standard output is read. A program still running
    /// after the `Watchdog`'s deadline is killed, so a hang fails the test.
    ///
    /// - Throws: when the program cannot be started (it is not installed).
    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> ExternalCommand {
        let errorPath = (NSTemporaryDirectory() as NSString).appendingPathComponent("sharelog-stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: errorPath) }
        let errorFile = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = errorFile
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let watchdog = Watchdog(killing: process.processIdentifier, named: executable)
        let out = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        watchdog.disarm()
        try errorFile.close()
        let err = FileManager.default.contents(atPath: errorPath) ?? Data()
        return ExternalCommand(status: process.terminationStatus, output: String(decoding: out, as: UTF8.self),
                               error: String(decoding: err, as: UTF8.self))
    }

    /// The built executable `name`, next to the test bundle.
    static func built(_ name: String) -> String {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent(name).path
    }
}
