import ShareLog

struct TrimCommand: Command {
    static let name = "trim"
    static let synopsis = "trim [--retention 60d]"
    static let summary = "Forget shares that ended longer ago than the retention (default 60 days): their tombstones and log entries."

    struct Output: Encodable {
        let shares: Int
        let entries: Int
        let batches: Int
        let trimmedThrough: UInt64
        let scrubbed: Bool
        let now: String
    }

    static let options: [OptionSpec] = [.value("retention", "60d", "forget shares that ended longer ago than this")]

    static func run(_ arguments: inout Arguments, _ context: Context) throws -> Int32 {
        let retention = try arguments.option("retention").map { try TTL.parse($0, option: "retention") } ?? ShareStore.defaultRetention
        try arguments.finish()
        guard retention >= ShareStore.ttlRange.upperBound else {
            throw CLIError.invalidInput("--retention must be at least 30d, the longest time to live: a share must be remembered longer than it can live")
        }
        let store = try context.openStore()
        defer { store.close() }
        let now = context.clock.now()
        let report = try store.trim(retention: retention, at: now) { context.progress("forgot \($0.shares) shares, \($0.entries) log entries") }
        context.progressDone()
        let output = Output(
            shares: report.shares, entries: report.entries, batches: report.batches, trimmedThrough: report.trimmedThrough,
            scrubbed: report.scrub != nil, now: now.iso8601)
        if context.json { try context.printJSON(output); return ExitCode.success }
        context.print("forgot \(counted(report.shares, "share")) and \(counted(report.entries, "log entry", "log entries")) that ended before the retention (as of \(now.iso8601))")
        return ExitCode.success
    }
}
