import ShareLog

struct UpgradeCommand: Command {
    static let name = "upgrade"
    static let synopsis = "upgrade"
    static let summary = "Upgrade the store to this build's format in place (any command that writes also does)."

    struct Output: Encodable {
        let upgraded: Bool
        let fromVersion: UInt32
        let toVersion: UInt32
        let eventsReplayed: Int
    }

    static let options: [OptionSpec] = []

    static func run(_ arguments: inout Arguments, _ context: Context) throws -> Int32 {
        try arguments.finish()
        let store = try ShareStore.open(at: context.storePath, options: context.storeOptions)
        defer { store.close() }
        let report = store.upgrade
        let output = Output(
            upgraded: report != nil, fromVersion: report?.fromVersion ?? ShareStore.formatVersion,
            toVersion: ShareStore.formatVersion, eventsReplayed: report?.eventsReplayed ?? 0)
        if context.json { try context.printJSON(output); return ExitCode.success }
        if let report {
            context.print("upgraded from format \(report.fromVersion) to \(report.toVersion): "
                + "\(counted(report.eventsReplayed, "log entry", "log entries")) replayed, the log unchanged")
        } else {
            context.print("already format \(ShareStore.formatVersion); nothing to do")
        }
        return ExitCode.success
    }
}
