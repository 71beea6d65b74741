import Foundation
import TestSupport

/// Runs a short-lived tool (taskset, openssl, wrk, curl) to its end, with
/// this process's environment and a deadline: TestSupport's `Subprocess`,
/// which kills it at the deadline.
enum ProcessRunner {
    struct Outcome {
        let status: Int32
        let output: [UInt8]
        /// Standard error as text, for messages.
        let error: String

        var outputText: String { String(decoding: output, as: UTF8.self) }
    }

    /// - Throws: `BenchError.process` when it cannot start or outlives `timeout`.
    static func run(_ executable: String, _ arguments: [String], timeout: Duration = .seconds(60)) throws -> Outcome {
        do {
            let outcome = try Subprocess.run(
                executable, arguments, environment: ProcessInfo.processInfo.environment, timeout: timeout)
            return Outcome(
                status: outcome.signaled ? -outcome.status : outcome.status, output: outcome.output,
                error: String(decoding: outcome.error, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        } catch {
            throw BenchError.process("\(executable) \(arguments.joined(separator: " ")): \(error)")
        }
    }

    /// Runs it and throws unless it exits 0.
    @discardableResult
    static func check(_ executable: String, _ arguments: [String], timeout: Duration = .seconds(60)) throws -> Outcome {
        let outcome = try run(executable, arguments, timeout: timeout)
        guard outcome.status == 0 else {
            throw BenchError.process("\(executable) \(arguments.joined(separator: " ")) exited \(outcome.status): \(outcome.error.suffix(600))")
        }
        return outcome
    }
}
