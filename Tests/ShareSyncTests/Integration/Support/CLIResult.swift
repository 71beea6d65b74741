import Foundation

/// How one `sharelog` run ended and what it printed.
struct CLIResult {
    let status: Int32
    /// True when a signal ended the process; `status` is then the signal.
    let signaled: Bool
    let output: [UInt8]
    let error: String

    var text: String { String(decoding: output, as: UTF8.self) }

    /// The one JSON object `--json` printed; empty when it printed none.
    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(output))) as? [String: Any] ?? [:]
    }

    /// The JSON objects of a `--json` stream, one per line (`log --json`).
    var jsonLines: [[String: Any]] {
        text.split(separator: "\n").map { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
        }
    }

    /// The JSON array `--json` printed (`peers --json`); nil when it printed none.
    var jsonArray: [[String: Any]]? {
        (try? JSONSerialization.jsonObject(with: Data(output))) as? [[String: Any]]
    }

    /// True for a run that exited with status 0.
    var succeeded: Bool { status == 0 && !signaled }
}
