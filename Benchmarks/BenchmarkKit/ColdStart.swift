import CBaseline
import Foundation
import ShareLog

/// The clip's cold start: a fresh process opens a store of shares, fetches
/// one by record name, and exits. ShareLog's process is `sharelog-bench
/// coldstart`; the baselines' is `sharelog-cold-c`.
public enum ColdStart {
    /// The whole of `sharelog-bench coldstart`: opens the ShareLog store at
    /// `store` with the engine's default options, fetches `id` at `now` ms.
    ///
    /// - Returns: the exit code (0 live, 3 not found, 4 expired, 1 failure,
    ///   5 a bad id) and the line to print.
    public static func fetchOnce(store: String, id: String, now: Int64) -> (code: Int32, line: String) {
        guard let name = RecordName(id) else { return (5, "not a record name: \(id)") }
        do {
            var options = ShareStore.Options()
            options.clock = FixedClock(Timestamp(milliseconds: now))
            switch try ShareStore.open(at: store, options: options).fetch(name) {
            case .live: return (0, "live")
            case .expired: return (4, "expired")
            case .notFound: return (3, "missing")
            }
        } catch {
            return (1, "\(error)")
        }
    }

    /// The command line of `system`'s cold start on the store at `store`;
    /// ShareLog's runs `bench` (a `sharelog-bench`).
    ///
    /// - Precondition: `system` is one of `BenchSystem.embedded`.
    static func command(
        _ system: BenchSystem, store: String, id: String, now: Int64, bench: String, _ executables: Executables
    ) -> [String] {
        switch system {
        case .shareLog: [bench, "coldstart", "--store", store, "--id", id, "--now", String(now)]
        case .cLMDB: [executables.coldC, "lmdb", store, id, String(now)]
        case .sqlite: [executables.coldC, "sqlite", store, id, String(now)]
        case .redis: preconditionFailure("Redis is a server: a process does not open its store")
        }
    }

    /// The command line of a process that starts and exits at once:
    /// `bench` for ShareLog, `sharelog-cold-c` for the baselines.
    static func noopCommand(_ system: BenchSystem, bench: String, _ executables: Executables) -> [String] {
        [system == .shareLog ? bench : executables.coldC, "noop"]
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
