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
             ShareLogError.invalidLink, ShareLogError.invalidToken, ShareLogError.tokenNameTaken,
             ShareLogError.tokenNotFound: invalidInput
        case ShareLogError.backupRefused(let refusal): of(refusal)
        default: failure
        }
    }

    /// A refused backup or restore: a source that is not there is not
    /// found, a destination in the way or a damaged manifest is input the
    /// command cannot take; a newer manifest or a copy that does not
    /// verify is a failure, as a newer store or `verify`'s mismatch is.
    private static func of(_ refusal: BackupRefusal) -> Int32 {
        switch refusal {
        case .notABackup: notFound
        case .destinationExists, .destinationInStore, .damagedManifest: invalidInput
        case .unsupportedManifest, .copyDoesNotVerify: failure
        }
    }
}
