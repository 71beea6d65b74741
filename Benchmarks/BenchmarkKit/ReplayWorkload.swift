import CBaseline

/// Workload 4: log replay, for the embedded stores (Redis keeps no
/// history to replay). Each system's store holds `replayEvents` events of
/// 1 KB cards: nine tenths creations, one tenth expirations (a sweep). The
/// replay rebuilds every projection from the log and compares it with the
/// stored one: ShareLog's `verify` folds in memory, the baselines fold into
/// a scratch store. Figures: events per second, and RssAnon growth during
/// the replay, at half the events and at its peak.
public struct ReplayWorkload: Workload {
    public let name = "replay"

    public init() {}

    public func run(in context: BenchContext, recording measurements: inout Measurements) async throws {
        let configuration = context.configuration
        let deck = CardDeck(mixed: false, pool: configuration.cardPool)
        let expirations = configuration.replayEvents / 10
        let creations = configuration.replayEvents - expirations
        var stores: [BenchSystem: any LoggedBenchStore] = [:]
        defer {
            for store in stores.values { store.close() }
            for system in BenchSystem.embedded { context.remove(context.storePath("replay", system)) }
        }
        for system in BenchSystem.embedded {
            context.progress("replay: filling \(Formatting.grouped(configuration.replayEvents)) events, \(system.rawValue)")
            stores[system] = try await context.filledLoggedStore(
                system, at: context.storePath("replay", system), deck: deck,
                parts: [.due(expirations), .live(creations - expirations)], sweepAt: BenchTime.start + 2 * BenchTime.day
            ).store
        }
        for round in 0..<configuration.replayRounds {
            var compared: [BenchSystem: Int] = [:]
            for system in BenchSystem.order(forRound: round, among: BenchSystem.embedded) {
                context.progress("replay: round \(round + 1), \(system.rawValue)")
                let trace = TraceRecorder(system: system)
                let replayed = try stores[system]!.replay(chunk: configuration.replayChunk, scratch: context.scratchPath()) {
                    trace.sample(events: $0)
                }
                let outcome = replayed.value
                guard outcome.consistent, outcome.events == configuration.replayEvents else {
                    throw BenchError.mismatch("\(system.rawValue) replayed \(outcome.events) events, consistent: \(outcome.consistent)")
                }
                compared[system] = outcome.entriesCompared
                measurements.record(
                    "replay", title: "log replay (verify)", unit: "events/s", higherIsBetter: true,
                    system: system, value: Double(outcome.events) / replayed.seconds)
                let memory = trace.trace
                measurements.record(
                    "replay.rssAnonHalf", title: "  RssAnon growth at half the events", unit: "MiB", higherIsBetter: false,
                    comparable: false, system: system, value: memory.growthMiB(atFraction: 0.5))
                measurements.record(
                    "replay.rssAnonPeak", title: "  RssAnon growth, peak", unit: "MiB", higherIsBetter: false,
                    comparable: false, system: system, value: memory.peakGrowthMiB)
                measurements.record(memory)
            }
            // ShareLog and its C twin walk the same databases of the same shape.
            guard compared[.shareLog] == compared[.cLMDB] else {
                throw BenchError.mismatch("entries compared: ShareLog \(compared[.shareLog] ?? 0), C-LMDB \(compared[.cLMDB] ?? 0)")
            }
        }
    }
}

/// Samples RssAnon as a replay reports progress.
private final class TraceRecorder {
    let system: BenchSystem
    private let before = Int(cb_rss_anon_kib())
    private var samples: [MemorySample] = []

    init(system: BenchSystem) {
        self.system = system
        samples.reserveCapacity(1024)
    }

    func sample(events: Int) {
        samples.append(MemorySample(events: events, rssAnonKiB: Int(cb_rss_anon_kib())))
    }

    var trace: MemoryTrace { MemoryTrace(system: system, beforeKiB: before, samples: samples) }
}
