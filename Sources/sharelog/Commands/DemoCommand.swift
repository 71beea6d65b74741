import Foundation
import SampleCards
import ShareClip
import ShareLog

/// The main job of `Scripts/demo`, in one process: a store gets generated
/// shares (some with photos), the clip side fetches and previews each by
/// id and by link, then a sweep 8 days ahead, compaction and verification.
struct DemoCommand: Command {
    static let name = "demo"
    static let synopsis = "demo [--shares 1000] [--photo-every 10]"
    static let summary = "Run the single-process demo against a new store at --store, and print a summary."

    struct Phase: Encodable {
        let name: String
        let count: Int
        let milliseconds: Double
    }

    struct Output: Encodable {
        let store: String
        let shares: Int
        let withPhotos: Int
        let phases: [Phase]
        let expired: Int
        let redacted: Int
        let verified: Bool
    }

    static func run(_ arguments: inout Arguments, _ context: Context) throws -> Int32 {
        let count = try arguments.integer("shares", in: 1...1_000_000) ?? 1000
        let photoEvery = try arguments.integer("photo-every", in: 1...1_000_000) ?? 10
        try arguments.finish()
        let store = try context.openStore(creatingIfMissing: true)
        let created = store.wasCreated
        guard created else {
            throw CLIError.invalidInput("demo needs a new store, but \(context.storePath) exists; pass another --store")
        }
        var phases: [Phase] = []
        func timed<T>(_ name: String, count: Int, _ body: () throws -> T) rethrows -> T {
            let clock = ContinuousClock()
            let start = clock.now
            let result = try body()
            let elapsed = start.duration(to: clock.now).components
            phases.append(Phase(name: name, count: count, milliseconds: Double(elapsed.seconds) * 1000 + Double(elapsed.attoseconds) / 1e15))
            if !context.json {
                let label = name.padding(toLength: 28, withPad: " ", startingAt: 0)
                context.print(label + String(format: "%7d in %9.1f ms", count, phases.last!.milliseconds))
            }
            return result
        }

        let cards = (0..<count).map { SampleCard.make(index: $0, photoBytes: $0 % photoEvery == 0 ? 45_000 : nil) }
        let shares = try timed("create (durable, one each)", count: count) {
            try cards.map { try store.create(vCard: $0) }
        }
        try timed("fetch by id", count: count) {
            for (share, card) in zip(shares, cards) {
                guard case .live(let fetched) = try store.fetch(share.recordName), fetched.vCard == card else {
                    throw CLIError.failure("share \(share.recordName) did not come back intact")
                }
            }
        }
        try timed("fetch by link and preview", count: count) {
            for share in shares {
                guard case .live(let fetched) = try store.fetch(link: share.link),
                      try VCardPreview(parsing: fetched.vCard).name != nil
                else { throw CLIError.failure("share \(share.recordName) has no preview") }
            }
        }
        let later = context.clock.now().advanced(by: .seconds(8 * 86_400))
        let swept = try timed("sweep 8 days ahead", count: count) { try store.sweep(at: later) }
        let compacted = try timed("compact", count: count) { try store.compact() }
        let report = try timed("verify", count: count * 2) { try store.verify() }
        let stillLive = try shares.filter { try store.fetch($0.recordName, at: later) != .expired(at: $0.expiresAt, reason: .ttl) }
        let output = Output(
            store: context.storePath, shares: count, withPhotos: cards.indices.filter { $0 % photoEvery == 0 }.count,
            phases: phases, expired: swept.expired, redacted: compacted.redacted, verified: report.isConsistent)
        if context.json {
            try context.printJSON(output)
        } else {
            context.print("")
            context.print("\(count) shares (\(output.withPhotos) with photos) created, fetched by id and by link")
            context.print("sweep at \(later.iso8601): \(swept.expired) expired; compaction redacted \(compacted.redacted) log entries")
            context.print("verify: \(report.isConsistent ? "projections match the log" : "MISMATCH")")
            context.print("store: \(context.storePath)")
        }
        return report.isConsistent && stillLive.isEmpty && swept.expired == count ? ExitCode.success : ExitCode.failure
    }
}
