/// Workload 3: expiry. E due shares among N (1 KB cards), with E held while
/// N grows, then E grown with N held. Each point fills fresh stores.
///
/// The embedded stores get the due shares first (as the oldest) and sweep
/// durably in batches; the figure is the time per expired share. SQLite's
/// sweep is the chunked delete through its expires_at index. Each round also
/// measures the disk's floor (`DiskFloor`), printed under each E-fixed row.
///
/// Redis has no sweep: its active expiry removes keys by itself. Its server
/// gets the live keys, then the due ones with `SET key card PX ttl`, all
/// falling due at one moment; the figure is the time from that moment until
/// Redis has removed them all, per expired key, with `appendfsync always`.
/// Redis samples its keys with a TTL a few at a time, so when few are due
/// that takes long; a point stops at `redisExpiryDeadline`, and the figure
/// is then the time so far per key removed so far. Under each point: the
/// share of the due keys removed.
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
        for round in 0..<configuration.sweepRounds {
            context.progress("sweep: the disk's sequential durable bandwidth, round \(round + 1)")
            let floor = try DiskFloor.measure(in: context.workDirectory, bytes: configuration.diskFloorBytes)
            for (total, due) in Self.points(configuration) {
                for system in BenchSystem.order(forRound: round) {
                    context.progress("sweep: E=\(Formatting.count(due)) of N=\(Formatting.count(total)), round \(round + 1), \(system.rawValue)")
                    if system == .redis {
                        try await expire(total: total, due: due, deck: deck, context, &measurements)
                    } else {
                        try await sweep(system, total: total, due: due, floor: floor, deck: deck, context, &measurements)
                    }
                }
            }
        }
    }

    /// One point of an embedded store: fill, then one durable sweep.
    private func sweep(
        _ system: BenchSystem, total: Int, due: Int, floor: DiskFloor, deck: CardDeck, _ context: BenchContext,
        _ measurements: inout Measurements
    ) async throws {
        let configuration = context.configuration
        let path = context.storePath("sweep", system)
        defer { context.remove(path) }
        let (store, _) = try await context.filledLoggedStore(system, at: path, deck: deck, parts: [.due(due), .live(total - due)])
        defer { store.close() }
        let writtenBefore = try store.bytesWritten()
        let swept = try store.sweep(at: BenchTime.start + 2 * BenchTime.day, batch: configuration.sweepBatch)
        let written = try store.bytesWritten() - writtenBefore
        guard swept.value == due else {
            throw BenchError.mismatch("\(system.rawValue) swept \(swept.value) of \(due) due shares")
        }
        let perShare = swept.seconds * 1e6 / Double(due)
        measurements.record(
            Self.figureID(total: total, due: due), title: Self.title(total: total, due: due),
            unit: "µs/share", higherIsBetter: false, system: system, value: perShare)
        measurements.record(SweepPoint(system: system, total: total, due: due, microsecondsPerShare: perShare))
        guard due == configuration.sweepDue else { return }
        measurements.record(
            Self.figureID(total: total, due: due) + ".written", title: "  bytes written per expired share",
            unit: "KiB", higherIsBetter: false, system: system, value: Double(written) / 1024 / Double(due))
        if system == .shareLog {
            measurements.record(
                Self.figureID(total: total, due: due) + ".floor",
                title: "  disk floor: its log and index entries at durable bandwidth, a sync per batch",
                unit: "µs/share", higherIsBetter: false, comparable: false, system: .shareLog,
                value: floor.microsecondsPerExpiredShare(batch: context.configuration.sweepBatch))
        }
    }

    /// One point of Redis: the live keys (cards `due ..< total`, as the
    /// embedded stores hold them), then the due ones (cards `0 ..< due`),
    /// timed until Redis has removed them or the deadline has passed.
    private func expire(
        total: Int, due: Int, deck: CardDeck, _ context: BenchContext, _ measurements: inout Measurements
    ) async throws {
        let configuration = context.configuration
        let path = context.storePath("sweep", .redis)
        context.remove(path)
        defer { context.remove(path) }
        let redis = try RedisBenchStore(path: path, durable: false)
        defer { redis.close() }
        if total > due {
            let live = FillPart.live(total - due)
            _ = try await redis.create(
                deck, first: due, count: live.count, batch: 1000, creators: 1, createdAt: BenchTime.start, ttl: live.ttl)
        }
        let deadline = configuration.redisExpiryDeadline
        let expired = try redis.expire(deck, first: 0, count: due, batch: 1000, deadline: .seconds(deadline))
        let removed = expired.value.removed
        if removed > 0 {
            let perKey = expired.seconds * 1e6 / Double(removed)
            measurements.record(
                Self.figureID(total: total, due: due), title: Self.title(total: total, due: due),
                unit: "µs/share", higherIsBetter: false, system: .redis, value: perKey)
            measurements.record(SweepPoint(system: .redis, total: total, due: due, microsecondsPerShare: perKey))
            if due == configuration.sweepDue {
                measurements.record(
                    Self.figureID(total: total, due: due) + ".written", title: "  bytes written per expired share",
                    unit: "KiB", higherIsBetter: false, system: .redis,
                    value: Double(expired.value.written) / 1024 / Double(removed))
            }
        }
        measurements.record(
            Self.figureID(total: total, due: due) + ".removed",
            title: "  due keys Redis removed within \(deadline) s",
            unit: "%", higherIsBetter: true, comparable: false, system: .redis, value: 100 * Double(removed) / Double(due))
    }

    static func figureID(total: Int, due: Int) -> String { "sweep.n\(total).e\(due)" }

    private static func title(total: Int, due: Int) -> String {
        "sweep, E=\(Formatting.count(due)) due of N=\(Formatting.count(total))"
    }
}
