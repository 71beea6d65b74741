import CBaseline
import Foundation
import ShareLog

/// The clip's cold start: a fresh process opens a store of shares, fetches
/// one by record name, and exits. ShareLog's process is `sharelog-cold`,
/// which links the engine alone, as an App Clip would; the baselines' is
/// `sharelog-cold-c`.
public enum ColdStart {
    /// The command line of `system`'s cold start on the store at `store`;
    /// ShareLog's runs `cold` (a `sharelog-cold`).
    ///
    /// - Precondition: `system` is one of `BenchSystem.embedded`.
    static func command(
        _ system: BenchSystem, store: String, id: String, now: Int64, cold: String, _ executables: Executables
    ) -> [String] {
        switch system {
        case .shareLog: [cold, store, id, String(now)]
        case .cLMDB: [executables.coldC, "lmdb", store, id, String(now)]
        case .sqlite: [executables.coldC, "sqlite", store, id, String(now)]
        case .redis: preconditionFailure("Redis is a server: a process does not open its store")
        }
    }

    /// The command line of a process that starts and exits at once:
    /// `cold` for ShareLog, `sharelog-cold-c` for the baselines.
    static func noopCommand(_ system: BenchSystem, cold: String, _ executables: Executables) -> [String] {
        [system == .shareLog ? cold : executables.coldC, "noop"]
    }

    /// Runs `arguments` once and checks that it printed `expected`.
    static func check(_ arguments: [String], prints expected: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0, printed.trimmingCharacters(in: .whitespacesAndNewlines) == expected else {
            throw BenchError.process("\(arguments.joined(separator: " ")) exited \(process.terminationStatus): \(printed)")
        }
    }

    /// Runs `arguments` with its output discarded.
    ///
    /// - Returns: wall seconds from spawn to the reaped exit.
    static func time(_ arguments: [String]) throws -> Double {
        var argv = arguments.map { strdup($0) }
        defer { argv.forEach { free($0) } }
        argv.append(nil)
        var elapsed: UInt64 = 0
        var status: Int32 = 0
        let rc = argv.withUnsafeBufferPointer { argv in
            argv.withMemoryRebound(to: UnsafePointer<CChar>?.self) { cb_spawn_and_wait($0.baseAddress, &elapsed, &status) }
        }
        guard rc == 0, status == 0 else {
            throw BenchError.process("\(arguments.joined(separator: " ")): spawn error \(rc), exit status \(status)")
        }
        return Double(elapsed) * 1e-9
    }
}
