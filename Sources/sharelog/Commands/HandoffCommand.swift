import ShareLog

struct HandoffCommand: Command {
    static let name = "handoff"
    static let synopsis = "handoff --from CLIP_STORE"
    static let summary = "The full app (--store) adopts the live shares the clip's store holds, exactly once; then the clip store may be deleted."

    struct Output: Encodable {
        let clipStore: String
        let sharesAdopted: Int
        let sharesEnded: Int
        let eventsApplied: Int
        let eventsAlreadyHeld: Int
        let alreadyHandedOffAt: String?
    }

    static let options: [OptionSpec] = [.value("from", "CLIP_STORE", "the clip's store, whose live shares this store adopts")]

    static func run(_ arguments: inout Arguments, _ context: Context) throws -> Int32 {
        guard let clipPath = try arguments.option("from") else { throw CLIError.usage("handoff needs --from CLIP_STORE") }
        try arguments.finish()
        let clip = try ShareStore.open(at: clipPath, options: context.storeOptions)
        let app = try context.openStore(creatingIfMissing: true)
        guard clip.replicaID != app.replicaID else { throw CLIError.invalidInput("--from names this store itself") }
        let report = try app.adopt(from: clip, at: context.clock.now())
        let output = Output(
            clipStore: clipPath, sharesAdopted: report.sharesAdopted, sharesEnded: report.sharesEnded, eventsApplied: report.eventsApplied,
            eventsAlreadyHeld: report.eventsAlreadyHeld, alreadyHandedOffAt: report.alreadyHandedOffAt?.iso8601)
        if context.json { try context.printJSON(output); return ExitCode.success }
        if let at = output.alreadyHandedOffAt {
            context.print("the clip store \(clipPath) was handed off to this store at \(at); nothing to do. It may be deleted.")
        } else {
            context.print("adopted \(counted(report.sharesAdopted, "share")) from the clip (\(report.eventsApplied) new events); "
                + "\(counted(report.sharesEnded, "share")) that had ended stayed behind")
            context.print("the clip store \(clipPath) is marked as handed off; it may now be deleted")
        }
        return ExitCode.success
    }
}
