import Foundation
import ShareLog

struct HandoffCommand: Command {
    static let name = "handoff"
    static let synopsis = "handoff --from CLIP_STORE [--create]"
    static let summary = "The full app (--store) adopts the live shares the clip's store holds, exactly once; then the clip store may be deleted."

    struct Output: Encodable {
        let clipStore: String
        let sharesAdopted: Int
        let sharesEnded: Int
        let eventsApplied: Int
        let eventsAlreadyHeld: Int
        let alreadyHandedOffAt: String?
    }

    static let options: [OptionSpec] = [
        .value("from", "CLIP_STORE", "the clip's store, whose live shares this store adopts"),
        .flag("create", "make this store (--store) when it does not exist: the full app's first run"),
    ]

    /// Refusals (docs/CLI.md, "handoff"): a `--from` or `--store` that names
    /// no store exits 3; a `--from` that is not a clip's store, or a clip
    /// handed off to another store, exits 5. Each is decided before anything
    /// is written to either store, and before `--create` makes one.
    static func run(_ arguments: inout Arguments, _ context: Context) throws -> Int32 {
        guard let clipPath = try arguments.option("from") else { throw CLIError.usage("handoff needs --from CLIP_STORE") }
        let create = arguments.flag("create")
        try arguments.finish()
        try check(clipPath, create: create, context)
        let clip = try ShareStore.open(at: clipPath, options: context.storeOptions)
        defer { clip.close() }
        let app = try context.openStore(creatingIfMissing: create)
        defer { app.close() }
        guard clip.replicaID != app.replicaID else { throw CLIError.invalidInput("--from names this store itself") }
        let report: HandoffReport
        do {
            report = try app.adopt(from: clip, at: context.clock.now())
        } catch {
            guard case .handoffRefused(let refusal) = error else { throw error }
            throw CLIError.invalidInput("\(refusal)")
        }
        let output = Output(
            clipStore: clipPath, sharesAdopted: report.sharesAdopted, sharesEnded: report.sharesEnded, eventsApplied: report.eventsApplied,
            eventsAlreadyHeld: report.eventsAlreadyHeld, alreadyHandedOffAt: report.alreadyHandedOffAt?.iso8601)
        if context.json { try context.printJSON(output); return ExitCode.success }
        if let at = output.alreadyHandedOffAt {
            context.print("the clip store \(clipPath) was handed off to this store at \(at); nothing to do. It may be deleted.")
        } else {
            context.print("adopted \(counted(report.sharesAdopted, "share")) from the clip (\(counted(report.eventsApplied, "new event"))); "
                + "\(counted(report.sharesEnded, "share")) that had ended stayed behind")
            context.print("the clip store \(clipPath) is marked as handed off; it may now be deleted")
        }
        return ExitCode.success
    }

    /// The refusals that need no write: looks at the clip's store opened
    /// read-only (so a store refused is not touched even by the identity
    /// check a writable open makes), and at whether `--store` exists. A
    /// clip marked as handed off cannot go to a store that does not exist
    /// yet, which would have a new replica id. `adopt(from:at:)` checks the
    /// clip again, and the mark against the app's id, before it writes.
    private static func check(_ clipPath: String, create: Bool, _ context: Context) throws {
        var readOnly = context.storeOptions
        readOnly.environment.readOnly = true
        let mark: (to: ReplicaID, at: Timestamp)?
        do {
            let probe = try ShareStore.open(at: clipPath, options: readOnly)
            // Closed before the open for writing that follows, which needs
            // other options.
            defer { probe.close() }
            if let refusal = try probe.clipStoreRefusal() { throw CLIError.invalidInput("\(refusal)") }
            mark = try probe.handedOff()
        } catch ShareLogError.storeNotFound {
            throw CLIError.notFound("no ShareLog store at \(clipPath), which --from names; give the clip's store")
        } catch ShareLogError.upgradeRequired(let found) {
            throw CLIError.failure(
                "the clip store \(clipPath) has format \(found); run 'sharelog --store \(clipPath) upgrade', then the handoff again")
        }
        guard !FileManager.default.fileExists(atPath: (context.storePath as NSString).appendingPathComponent("data.mdb")) else { return }
        guard create else {
            throw CLIError.notFound("no ShareLog store at \(context.storePath); run 'sharelog init' there, or give handoff --create to make it")
        }
        if let mark { throw CLIError.invalidInput("\(HandoffRefusal.handedOffElsewhere(path: clipPath, to: mark.to, at: mark.at))") }
    }
}
