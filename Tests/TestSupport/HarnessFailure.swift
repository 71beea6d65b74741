/// Something a test relies on to set up or watch its processes went
/// wrong, so the test cannot go on. The description names the program or
/// step and carries what the program wrote to standard error: read it to
/// see why, then fix the store, the command line or the product.
public enum HarnessFailure: Error, Sendable, CustomStringConvertible {
    /// `command` did not succeed: it exited with `status`, or a signal
    /// ended it (`status` is then minus the signal's number), after writing
    /// `log` to standard error.
    case failed(_ command: String, status: Int32, log: String)
    /// `process` ended while the test still needed it, before it did what
    /// `before` says; `log` is its standard error.
    case endedEarly(_ process: String, before: String, log: String)
    /// What a step made is not what the test built; the text says how.
    case unexpected(String)

    public var description: String {
        switch self {
        case .failed(let command, let status, let log) where status < 0: "\(command) was ended by signal \(-status): \(log)"
        case .failed(let command, let status, let log): "\(command) exited \(status): \(log)"
        case .endedEarly(let process, let before, let log): "\(process) ended before \(before): \(log)"
        case .unexpected(let text): text
        }
    }
}
