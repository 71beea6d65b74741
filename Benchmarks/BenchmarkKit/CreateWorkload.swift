/// Workload 1: durable creates of 9:1 mixed cards, three ways: one share per
/// commit; concurrent creators (8 tasks for ShareLog, where group commit may
/// batch them; 8 threads with their own transactions or connections for the
/// others); and batches of 1,000 per commit. For Redis a commit is a `SET`
/// acknowledged after its AOF write is fsynced (`appendfsync always`), and a
/// batch is 1,000 pipelined `SET`s. Each round creates into fresh stores,
/// the systems taking turns slice by slice.
///
/// Besides creates per second: shares per durable commit for the
/// concurrent creators (from LMDB's transaction ids), and bytes handed to
/// write calls per share for the batches (Redis: its AOF's growth). Then
/// ShareLog's group-commit rows (`CreateWorkload+GroupCommit.swift`).
public struct CreateWorkload: Workload {
    public let name = "create"

    public init() {}

    private struct Variant {
        let id: String
        let title: String
        let count: Int
        let batch: Int
        let creators: Int
    }

    /// One system's totals over the slices of a round.
    private struct Tally {
        var seconds = 0.0
        var created = 0
        var commits: Int? = 0
        var written = 0
    }

    private func variants(_ configuration: BenchConfiguration) -> [Variant] {
        [
            Variant(id: "create.onePerCommit", title: "create, one per commit",
                    count: configuration.createOnePerCommit, batch: 1, creators: 1),
            Variant(id: "create.concurrent", title: "create, \(configuration.concurrentCreators) concurrent creators",
                    count: configuration.createConcurrent, batch: 1, creators: configuration.concurrentCreators),
            Variant(id: "create.batched", title: "create, batches of \(Formatting.grouped(configuration.batchSize))",
                    count: configuration.createBatched, batch: configuration.batchSize, creators: 1),
        ]
    }

    public func run(in context: BenchContext, recording measurements: inout Measurements) async throws {
        let configuration = context.configuration
        let deck = CardDeck(mixed: true, pool: configuration.cardPool)
        for round in 0..<configuration.rounds {
            var sqliteOnePerCommit: Double?
            for variant in variants(configuration) {
                context.progress("\(variant.title): \(variant.count) shares per system, round \(round + 1)")
                let tallies = try await measure(variant, round: round, deck: deck, context)
                if variant.id == "create.onePerCommit", let sqlite = tallies[.sqlite] {
                    sqliteOnePerCommit = Double(sqlite.created) / sqlite.seconds
                }
                for (system, tally) in tallies {
                    measurements.record(
                        variant.id, title: variant.title, unit: "creates/s", higherIsBetter: true,
                        system: system, value: Double(tally.created) / tally.seconds)
                    if variant.creators > 1, let commits = tally.commits, commits > 0 {
                        measurements.record(
                            variant.id + ".sharesPerCommit", title: "  shares per durable commit", unit: "shares",
                            higherIsBetter: true, comparable: false, system: system,
                            value: Double(tally.created) / Double(commits))
                    }
                    if variant.batch > 1 {
                        measurements.record(
                            variant.id + ".written", title: "  bytes written per share", unit: "KiB",
                            higherIsBetter: false, system: system,
                            value: Double(tally.written) / 1024 / Double(tally.created))
                    }
                }
            }
            try await measureGroupCommit(
                round: round, deck: deck, sqliteOnePerCommit: sqliteOnePerCommit, context, &measurements)
        }
    }

    /// One round of `variant` into fresh stores, slice by slice.
    private func measure(
        _ variant: Variant, round: Int, deck: CardDeck, _ context: BenchContext
    ) async throws -> [BenchSystem: Tally] {
        var stores: [BenchSystem: any BenchStore] = [:]
        defer {
            for store in stores.values { store.close() }
            for system in BenchSystem.allCases { context.remove(context.storePath("create", system)) }
        }
        for system in BenchSystem.allCases {
            let path = context.storePath("create", system)
            context.remove(path)
            stores[system] = try openStore(system, at: path, durable: true)
        }
        // Whole batches per slice, at least one; concurrent creators get at
        // least 10 shares each per slice, so group commit reaches its pace.
        let slices = variant.creators > 1
            ? max(1, min(context.configuration.slices, variant.count / (10 * variant.creators)))
            : context.configuration.slices
        let slice = max(variant.batch, variant.count / slices / variant.batch * variant.batch)
        var tallies: [BenchSystem: Tally] = [:]
        for (index, first) in stride(from: 0, to: variant.count, by: slice).enumerated() {
            let count = min(slice, variant.count - first)
            for system in BenchSystem.order(forRound: round + index) {
                let store = stores[system]!
                let commitsBefore = store.commitCount()
                let writtenBefore = try store.bytesWritten()
                let created = try await store.create(
                    deck, first: first, count: count, batch: variant.batch, creators: variant.creators,
                    createdAt: BenchTime.start, ttl: 7 * BenchTime.day)
                let written = try store.bytesWritten() - writtenBefore
                guard created.value.count == 16 * count else {
                    throw BenchError.mismatch("\(system.rawValue) created \(created.value.count / 16) of \(count) shares")
                }
                var tally = tallies[system] ?? Tally()
                tally.seconds += created.seconds
                tally.created += count
                tally.written += written
                tally.commits = store.commitCount().flatMap { after in
                    commitsBefore.flatMap { before in tally.commits.map { $0 + after - before } }
                }
                tallies[system] = tally
            }
        }
        return tallies
    }
}
