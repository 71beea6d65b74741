import Foundation
import Glibc
import ShareLog
import SharePrimitives
import ShareSync

/// The process's log on standard error (docs/OPERATIONS.md "Logs"). Every
/// command's log records go through one `LogQueue`, started at the first
/// record, so a server never waits on its log; each is written as one
/// `write(2)` in the process's `LogFormat`, so lines from many threads
/// never interleave.
///
/// The format is `--log-format`, else `SHARELOG_LOG_FORMAT`, else text
/// when standard error is a terminal and JSON when it is not (a journal,
/// a file, a pipe). The error that ends a command is not a log record: it
/// is the command's answer (`ErrorReport`).
enum ProcessLog {
    private struct State {
        var format = LogFormat.text
        var queue: LogQueue?
    }

    private static let state = Locked(State())

    /// Sets the format, before the first record.
    static func use(_ format: LogFormat) { state.withLock { $0.format = format } }

    /// The format of a process whose command line gave `option` (nil: not
    /// given), in `environment`.
    static func format(option: String?, environment: [String: String]) throws -> LogFormat {
        if let option {
            guard let format = LogFormat(rawValue: option) else { throw CLIError.usage("--log-format is json or text, not '\(option)'") }
            return format
        }
        if let variable = environment["SHARELOG_LOG_FORMAT"] {
            guard let format = LogFormat(rawValue: variable) else {
                throw CLIError.usage("SHARELOG_LOG_FORMAT is json or text, not '\(variable)'")
            }
            return format
        }
        return isatty(STDERR_FILENO) == 1 ? .text : .json
    }

    /// Queues `record`; never waits for standard error.
    static func record(_ record: LogRecord) {
        let queue = state.withLock { state -> LogQueue in
            if let queue = state.queue { return queue }
            let format = state.format
            let queue = LogQueue { record, time in
                let bytes = Array((format.line(record, at: time) + "\n").utf8)
                bytes.withUnsafeBytes { _ = Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
            }
            state.queue = queue
            return queue
        }
        queue.append(record)
    }

    /// Writes what is queued, waiting at most 5 s for a standard error
    /// nobody reads. Called before the process exits.
    static func flush() {
        state.withLock { $0.queue }?.close()
    }
}

/// Logs `message` as event `event` (`ProcessLog`).
func logEvent(_ event: String, _ message: String, _ level: LogRecord.Level = .info, _ fields: [(name: String, value: LogValue)] = []) {
    ProcessLog.record(LogRecord(level, event, message, fields))
}
