import ShareLog

/// Why the CLI stops, and with which exit code.
enum CLIError: Error, CustomStringConvertible {
    /// The command line is wrong (exit 2).
    case usage(String)
    /// A value given on the command line or in a file is wrong (exit 5).
    case invalidInput(String)
    /// Anything else that failed (exit 1).
    case failure(String)
    /// What was asked for is not there (exit 3).
    case notFound(String)

    var description: String {
        switch self {
        case .usage(let message): "\(message); see 'sharelog help'"
        case .invalidInput(let message), .failure(let message), .notFound(let message): message
        }
    }
}
