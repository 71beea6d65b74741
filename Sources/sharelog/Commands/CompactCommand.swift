import ShareLog

struct CompactCommand: Command {
    static let name = "compact"
    static let synopsis = "compact [--batch 1000]"
    static let summary = "Remove expired shares' cards from the log and wipe them from the files."

    struct Output: Encodable {
        let redacted: Int
        let batches: Int
        let freePagesZeroed: Int
        let freePagesDeferred: Int
        let bytesZeroed: Int
    }

    static let options: [OptionSpec] = [.value("batch", "1000", "shares compacted per write transaction (1 to 100000)")]

    static func run(_ arguments: inout Arguments, _ context: Context) throws -> Int32 {
        let batch = try arguments.integer("batch", in: 1...100_000) ?? 1000
        try arguments.finish()
        let store = try context.openStore()
        defer { store.close() }
        let report = try store.compact(batchSize: batch) { context.progress("redacted \($0.redacted) log entries") }
        context.progressDone()
        let scrub = report.scrub
        let output = Output(
            redacted: report.redacted, batches: report.batches,
            freePagesZeroed: scrub?.freePagesZeroed ?? 0, freePagesDeferred: scrub?.freePagesDeferred ?? 0,
            bytesZeroed: (scrub?.gapBytesZeroed ?? 0) + (scrub?.overflowTailBytesZeroed ?? 0))
        if context.json { try context.printJSON(output); return ExitCode.success }
        context.print("redacted \(counted(report.redacted, "log entry", "log entries")); zeroed \(counted(output.freePagesZeroed, "free page")) and \(counted(output.bytesZeroed, "unused byte"))")
        if output.freePagesDeferred > 0 {
            context.print("\(output.freePagesDeferred) free pages are still readable by a live snapshot; compact again once it ends")
        }
        return ExitCode.success
    }
}
