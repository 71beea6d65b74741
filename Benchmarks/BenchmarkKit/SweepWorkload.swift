import CBaseline

/// Workload 3: the expiry sweep. E due shares among N (1 KB cards), with E
/// held while N grows, then E grown with N held. Each point fills fresh
/// stores (the due shares first, as the oldest), then sweeps durably in
/// batches; the figure is the time per expired share. SQLite's sweep is
/// the chunked delete through its expires_at index. Each round also
/// measures the disk's floor (`DiskFloor`), printed under each E-fixed row.
public struct SweepWorkload: Workload {
    public let name = "sweep"

    public init() {}

    /// The (N, E) points: E fixed over every N, then E growing at one N.
    static func points(_ configuration: BenchConfiguration) -> [(total: Int, due: Int)] {
        var points = configuration.sweepTotals.map { (total: $0, due: configuration.sweepDue) }
        for due in configuration.sweepGrowingDue where !points.contains(where: { $0 == (configuration.sweepFixedTotal, due) }) {
            points.append((configuration.sweepFixedTotal, due))
        }
        return points
    }

    public func run(in context: BenchContext, recording measurements: inout Measurements) async throws {
        let configuration = context.configuration
        let deck = CardDeck(mixed: false, pool: configuration.cardPool)
        let now = BenchTime.start + 2 * BenchTime.day
        for round in 0..<configuration.sweepRounds {
            context.progress("sweep: the disk's sequential durable bandwidth, round \(round + 1)")
            let floor = try DiskFloor.measure(in: context.workDirectory, bytes: configuration.diskFloorBytes)
            for (total, due) in Self.points(configuration) {
                for system in BenchSystem.order(forRound: round) {
                    context.progress("sweep: E=\(Formatting.count(due)) of N=\(Formatting.count(total)), round \(round + 1), \(system.rawValue)")
                    let path = context.storePath("sweep", system)
                    defer { context.remove(path) }
                    let (store, _) = try await context.filledStore(
                        system, at: path, deck: deck, parts: [.due(due), .live(total - due)])
                    defer { store.close() }
                    let writtenBefore = cb_write_bytes()
                    let swept = try store.sweep(at: now, batch: configuration.sweepBatch)
                    let written = cb_write_bytes() - writtenBefore
                    guard swept.value == due else {
                        throw BenchError.mismatch("\(system.rawValue) swept \(swept.value) of \(due) due shares")
                    }
                    let perShare = swept.seconds * 1e6 / Double(due)
                    measurements.record(
                        Self.figureID(total: total, due: due),
                        title: "sweep, E=\(Formatting.count(due)) due of N=\(Formatting.count(total))",
                        unit: "µs/share", higherIsBetter: false, system: system, value: perShare)
                    measurements.record(SweepPoint(system: system, total: total, due: due, microsecondsPerShare: perShare))
                    if due == configuration.sweepDue {
                        measurements.record(
                            Self.figureID(total: total, due: due) + ".written", title: "  bytes written per expired share",
                            unit: "KiB", higherIsBetter: false, system: system, value: Double(written) / 1024 / Double(due))
                        if system == .shareLog {
                            measurements.record(
                                Self.figureID(total: total, due: due) + ".floor",
                                title: "  disk floor: its log and index entries at durable bandwidth, a sync per batch",
                                unit: "µs/share", higherIsBetter: false, comparable: false, system: .shareLog,
                                value: floor.microsecondsPerExpiredShare(batch: configuration.sweepBatch))
                        }
                    }
                }
            }
        }
    }

    static func figureID(total: Int, due: Int) -> String { "sweep.n\(total).e\(due)" }
}
