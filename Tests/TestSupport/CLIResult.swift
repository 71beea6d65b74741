import Foundation

/// How one run of a program (`sharelog`, or a tool such as `cp`) ended and
/// what it printed.
public struct CLIResult: Sendable {
    /// The exit status; minus the signal's number when a signal ended the
    /// process, so that no signal reads as an exit status.
    public let status: Int32
    public let output: [UInt8]
    public let error: String

    public init(_ outcome: Subprocess.Outcome) {
        status = outcome.signaled ? -outcome.status : outcome.status
        output = outcome.output
        error = String(decoding: outcome.error, as: UTF8.self)
    }

    public var text: String { String(decoding: output, as: UTF8.self) }

    /// The one JSON object `--json` printed; empty when it printed none.
    public var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(output))) as? [String: Any] ?? [:]
    }

    /// The JSON objects of a `--json` stream, one per line (`log --json`).
    public var jsonLines: [[String: Any]] {
        text.split(separator: "\n").map { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
        }
    }

    /// The JSON array `--json` printed (`peers --json`); nil when it printed none.
    public var jsonArray: [[String: Any]]? {
        (try? JSONSerialization.jsonObject(with: Data(output))) as? [[String: Any]]
    }

    /// True for a run that exited with status 0.
    public var succeeded: Bool { status == 0 }

    /// This result when the run succeeded; else throws
    /// `HarnessFailure.failed` naming `command`. For the runs a test relies
    /// on to build or read a store, not for the ones it asserts on.
    public func checked(_ command: String) throws -> CLIResult {
        guard succeeded else { throw HarnessFailure.failed(command, status: status, log: error) }
        return self
    }
}
