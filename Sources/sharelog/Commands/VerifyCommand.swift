import ShareLog

struct VerifyCommand: Command {
    static let name = "verify"
    static let synopsis = "verify"
    static let summary = "Rebuild the projections from the log and compare; exit 1 on any difference."

    struct Output: Encodable {
        let consistent: Bool
        let events: Int
        let entriesCompared: Int
        let mismatches: [String]
        let unlistedMismatches: Int
        let corruptEvents: [String]
        let positionGaps: [UInt64]
    }

    static let options: [OptionSpec] = []

    static func run(_ arguments: inout Arguments, _ context: Context) throws -> Int32 {
        try arguments.finish()
        let store = try context.openStoreToRead(for: Self.name)
        let report = try store.verify { context.progress("read \($0) log entries") }
        context.progressDone()
        let output = Output(
            consistent: report.isConsistent, events: report.events, entriesCompared: report.entriesCompared,
            mismatches: report.mismatches.map(\.description), unlistedMismatches: report.unlistedMismatches,
            corruptEvents: report.corruptEvents.map(\.description), positionGaps: report.positionGaps)
        if context.json {
            try context.printJSON(output)
        } else {
            for line in output.corruptEvents + output.mismatches { context.print(line) }
            for gap in report.positionGaps { context.print("log: position \(gap) is missing") }
            if report.unlistedMismatches > 0 { context.print("… and \(report.unlistedMismatches) more mismatches") }
            context.print(report.isConsistent
                ? "ok: \(report.events) events, \(report.entriesCompared) projection entries match the log"
                : "MISMATCH: the projections differ from the log")
        }
        return report.isConsistent ? ExitCode.success : ExitCode.failure
    }
}
