import ShareLog

struct CompactCommand: Command {
    static let name = "compact"
    static let synopsis = "compact [--batch 1000]"
    static let summary = "Remove expired shares' cards from the log and wipe them from the files."

    struct Output: Encodable {
        let redacted: Int
        let batches: Int
    }

    static func run(_ arguments: inout Arguments, _ context: Context) throws -> Int32 {
        let batch = try arguments.integer("batch", in: 1...100_000) ?? 1000
        try arguments.finish()
        let store = try context.openStore()
        let report = try store.compact(batchSize: batch) { context.progress("redacted \($0.redacted) log entries") }
        context.progressDone()
        let output = Output(redacted: report.redacted, batches: report.batches)
        if context.json { try context.printJSON(output); return ExitCode.success }
        context.print("redacted \(report.redacted) log entries")
        return ExitCode.success
    }
}
