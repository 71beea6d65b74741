import ShareLog

struct StatsCommand: Command {
    static let name = "stats"
    static let synopsis = "stats"
    static let summary = "Print the replica id, epoch, event and share counts, and sizes."

    /// `live`, `due` and `expired` never overlap: live by the clock
    /// (`--now`), ended by the clock but not yet swept, and swept.
    struct Output: Encodable {
        let replicaID: String
        let epoch: String
        let events: Int
        let lastPosition: UInt64
        let live: Int
        let expired: Int
        let due: Int
        let pendingRedactions: Int
        let fileBytes: Int
        let usedBytes: Int
    }

    static let options: [OptionSpec] = []

    static func run(_ arguments: inout Arguments, _ context: Context) throws -> Int32 {
        try arguments.finish()
        let stats = try context.openStoreToRead(for: Self.name).stats()
        let output = Output(
            replicaID: "\(stats.replicaID)", epoch: "\(stats.epoch)", events: stats.events,
            lastPosition: stats.lastPosition, live: stats.live - stats.due, expired: stats.expired, due: stats.due,
            pendingRedactions: stats.pendingRedactions, fileBytes: stats.fileBytes, usedBytes: stats.usedBytes)
        if context.json { try context.printJSON(output); return ExitCode.success }
        context.print("replica:   \(output.replicaID)")
        context.print("epoch:     \(output.epoch)")
        context.print("events:    \(output.events) (last position \(output.lastPosition))")
        context.print("shares:    \(output.live) live, \(output.due) ended awaiting a sweep, \(output.expired) expired")
        context.print("redaction: \(counted(output.pendingRedactions, "log entry", "log entries")) awaiting compaction")
        context.print("bytes:     \(output.usedBytes) used of \(output.fileBytes) in data.mdb")
        return ExitCode.success
    }
}
