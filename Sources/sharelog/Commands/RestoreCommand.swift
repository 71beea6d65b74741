import Foundation
import ShareLog

struct RestoreCommand: Command {
    static let name = "restore"
    static let synopsis = "restore SRC"
    static let summary =
        "Make a new store at --store from the backup in SRC, with a new replica id, wiping every card of a share ended at --now."

    struct Output: Encodable {
        let store: String
        let backup: String
        let takenAt: String
        let at: String
        let sourceReplicaID: String
        let backupReplicaID: String
        let replicaID: String
        let epoch: String
        let shares: Int
        let events: Int
        let expired: Int
        let redacted: Int
        let leftoversRemoved: Int
    }

    static let options: [OptionSpec] = []

    /// A SRC that holds no backup exits 3; a --store that exists (other
    /// than an empty directory) or a damaged manifest exits 5; nothing is
    /// written then.
    static func run(_ arguments: inout Arguments, _ context: Context) throws -> Int32 {
        let backup = try arguments.positional("the backup's directory SRC")
        try arguments.finish()
        let report = try ShareStore.restore(from: backup, to: context.storePath, at: context.clock.now(), options: context.storeOptions) {
            context.progress(BackupCommand.describe($0))
        }
        context.progressDone()
        let manifest = report.manifest
        BackupCommand.noteLeftovers(report.leftoversRemoved, beside: context.storePath)
        let output = Output(
            store: context.storePath, backup: backup, takenAt: manifest.takenAt.iso8601, at: report.at.iso8601,
            sourceReplicaID: "\(manifest.sourceReplicaID)", backupReplicaID: "\(manifest.replicaID)", replicaID: "\(report.replicaID)",
            epoch: "\(report.epoch)", shares: report.shares, events: report.events, expired: report.expired, redacted: report.redacted,
            leftoversRemoved: report.leftoversRemoved)
        if context.json { try context.printJSON(output); return ExitCode.success }
        context.print("restored the backup of replica \(manifest.sourceReplicaID) taken at \(output.takenAt) into \(context.storePath) as of \(output.at)")
        context.print("replica: \(report.replicaID)")
        context.print("epoch:   \(report.epoch)")
        let since = report.expired == 0
            ? "no share in it has ended since"
            : "\(counted(report.expired, "share")) in it ended since: expired, \(counted(report.redacted, "card")) wiped"
        context.print("\(counted(report.shares, "live share")) and \(counted(report.events, "log entry", "log entries")); \(since)")
        return ExitCode.success
    }
}
