import ShareLog

/// The documented exit codes.
enum ExitCode {
    static let success: Int32 = 0
    static let failure: Int32 = 1
    static let usage: Int32 = 2
    static let notFound: Int32 = 3
    static let expired: Int32 = 4
    static let invalidInput: Int32 = 5
    /// `relay`: the stream lost messages this replica never applied.
    static let snapshotRequired: Int32 = 6

    /// The name of an exit code in `--json` errors (`ErrorReport`).
    static func name(of code: Int32) -> String {
        switch code {
        case success: "ok"
        case usage: "usage"
        case notFound: "notFound"
        case expired: "expired"
        case invalidInput: "invalidInput"
        case snapshotRequired: "snapshotRequired"
        default: "failure"
        }
    }

    /// The exit code for an error that reached the top.
    static func of(_ error: any Error) -> Int32 {
        switch error {
        case CLIError.usage: usage
        case CLIError.invalidInput: invalidInput
        case CLIError.notFound: notFound
        case ShareLogError.notFound, ShareLogError.storeNotFound: notFound
        case ShareLogError.expired: expired
        case ShareLogError.invalidVCard, ShareLogError.invalidTTL, ShareLogError.invalidRecordName,
             ShareLogError.invalidLink: invalidInput
        default: failure
        }
    }
}
