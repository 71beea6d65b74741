import ShareLog

struct SweepCommand: Command {
    static let name = "sweep"
    static let synopsis = "sweep [--batch 1000]"
    static let summary = "Expire every share that is due, in batches; print how many expired."

    struct Output: Encodable {
        let expired: Int
        let batches: Int
        let keysVisited: Int
        let now: String
    }

    static let options: [OptionSpec] = [.value("batch", "1000", "shares expired per write transaction (1 to 100000)")]

    static func run(_ arguments: inout Arguments, _ context: Context) throws -> Int32 {
        let batch = try arguments.integer("batch", in: 1...100_000) ?? 1000
        try arguments.finish()
        let store = try context.openStore()
        defer { store.close() }
        let now = context.clock.now()
        let report = try store.sweep(at: now, batchSize: batch) { context.progress("swept \($0.expired) shares") }
        context.progressDone()
        let output = Output(expired: report.expired, batches: report.batches, keysVisited: report.keysVisited, now: now.iso8601)
        if context.json { try context.printJSON(output); return ExitCode.success }
        context.print("expired \(counted(report.expired, "share")) in \(counted(report.batches, "batch", "batches")) (as of \(now.iso8601))")
        return ExitCode.success
    }
}
