import Foundation
import ShareLog

struct BackupCommand: Command {
    static let name = "backup"
    static let synopsis = "backup DEST"
    static let summary =
        "Copy the store, while it serves, into the new directory DEST, leaving out every card of a share ended at --now; "
        + "DEST/backup.json says when to delete it."

    struct Output: Encodable {
        let path: String
        let takenAt: String
        let sourceReplicaID: String
        let replicaID: String
        let events: Int
        let shares: Int
        let expired: Int
        let redacted: Int
        /// Null when the backup holds no card.
        let deleteBy: String?
        let bytes: Int
        let leftoversRemoved: Int
    }

    static let options: [OptionSpec] = []

    /// Reads the store only (it opens it read-only, docs/CLI.md "Commands
    /// that only read"); a DEST that exists exits 5 with nothing written.
    static func run(_ arguments: inout Arguments, _ context: Context) throws -> Int32 {
        let destination = try arguments.positional("the backup's directory DEST")
        try arguments.finish()
        let store = try context.openStoreToRead(for: Self.name)
        defer { store.close() }
        let report = try store.backup(to: destination, at: context.clock.now()) { context.progress(Self.describe($0)) }
        context.progressDone()
        let manifest = report.manifest
        noteLeftovers(report.leftoversRemoved, beside: destination)
        let output = Output(
            path: destination, takenAt: manifest.takenAt.iso8601, sourceReplicaID: "\(manifest.sourceReplicaID)",
            replicaID: "\(manifest.replicaID)", events: manifest.events, shares: manifest.shares, expired: report.expired,
            redacted: report.redacted, deleteBy: manifest.deleteBy?.iso8601, bytes: report.bytes, leftoversRemoved: report.leftoversRemoved)
        if context.json { try context.printJSON(output); return ExitCode.success }
        context.print("backed up \(counted(manifest.shares, "live share")) and \(counted(manifest.events, "log entry", "log entries")) "
            + "of replica \(manifest.sourceReplicaID) to \(destination) as of \(output.takenAt)")
        if report.redacted > 0 { context.print("left out \(counted(report.redacted, "card")) of shares that had ended") }
        if let deleteBy = output.deleteBy {
            context.print("delete \(destination) by \(deleteBy), when the last share it holds ends")
        } else {
            context.print("\(destination) holds no card")
        }
        return ExitCode.success
    }

    /// A progress line for `stage`, for backup and restore.
    static func describe(_ stage: BackupStage) -> String {
        switch stage {
        case .copying: "copying"
        case .expiring: "expiring ended shares and wiping their cards"
        case .verifying(let read): "verifying: read \(read) log entries"
        case .publishing: "writing"
        }
    }

    /// Says on standard error that `count` staging directories of runs
    /// that died were removed beside `destination`; nothing when none were.
    static func noteLeftovers(_ count: Int, beside destination: String) {
        guard count > 0 else { return }
        logEvent(
            "backup.leftoversRemoved",
            "removed \(counted(count, "staging directory", "staging directories")) an interrupted backup or restore left beside \(destination)", .info,
            [("removed", LogValue(count))])
    }
}
