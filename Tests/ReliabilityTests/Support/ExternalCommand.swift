import Foundation
import TestSupport

/// Runs a program to completion and captures what it printed.
struct ExternalCommand {
    let status: Int32
    let output: String
    let error: String

    /// Runs `executable arguments…` with empty standard input and this
    /// process's environment, through `Subprocess`: a program still running
    /// after its deadline is killed and the call throws.
    ///
    /// - Throws: when the program cannot be started (it is not installed).
    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> ExternalCommand {
        let outcome = try Subprocess.run(executable, arguments, environment: ProcessInfo.processInfo.environment)
        return ExternalCommand(
            status: outcome.status, output: String(decoding: outcome.output, as: UTF8.self),
            error: String(decoding: outcome.error, as: UTF8.self))
    }

    /// The built executable `name`, next to the test bundle.
    static func built(_ name: String) -> String {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent(name).path
    }
}
