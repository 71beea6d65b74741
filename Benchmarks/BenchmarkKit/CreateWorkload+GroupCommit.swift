import Foundation

/// ShareLog's group-commit rows (issue 11), every round after the three
/// create variants, ShareLog only:
/// - `concurrentCreators` tasks creating durably, with the configuration's
///   `commitDelay` and without any, into fresh stores taking turns slice by
///   slice: creates per second and shares per durable commit; the ratio with
///   the delay to SQLite one per commit in the same round (the goal
///   is 3x) and to the same creators without the delay;
/// - what the delay costs a lone writer (one create per commit, one
///   thread): milliseconds per create with and without it, and their ratio,
///   where 1.00x means no cost.
extension CreateWorkload {
    /// One way of running the writers: the delay, and the figures it records.
    private struct DelayCase {
        let delay: Duration
        let concurrentID: String
        let concurrentTitle: String
        let loneID: String
        let loneTitle: String
    }

    /// Seconds, shares and commits of one case over a round's slices.
    private struct Totals {
        var seconds = 0.0
        var created = 0
        var commits = 0
    }

    func measureGroupCommit(
        round: Int, deck: CardDeck, sqliteOnePerCommit: Double?, _ context: BenchContext,
        _ measurements: inout Measurements
    ) async throws {
        let configuration = context.configuration
        let creators = configuration.concurrentCreators
        let delayed = DelayCase(
            delay: .microseconds(configuration.commitDelayMicroseconds),
            concurrentID: "create.concurrent.delay",
            concurrentTitle: "create, \(creators) concurrent creators, commit delay \(configuration.commitDelayMicroseconds) µs",
            loneID: "create.lone.delay",
            loneTitle: "create, lone writer, commit delay \(configuration.commitDelayMicroseconds) µs")
        let undelayed = DelayCase(
            delay: .zero,
            concurrentID: "create.concurrent.noDelay", concurrentTitle: "create, \(creators) concurrent creators, no commit delay",
            loneID: "create.lone.noDelay", loneTitle: "create, lone writer, no commit delay")
        let cases = [delayed, undelayed]

        context.progress("group commit: \(configuration.createConcurrent) shares from \(creators) creators, with and without commit delay, round \(round + 1)")
        // At least 10 shares per creator per slice, as in the concurrent variant.
        let concurrentSlices = max(1, min(configuration.slices, configuration.createConcurrent / (10 * creators)))
        let concurrent = try await run(
            cases, count: configuration.createConcurrent, slices: concurrentSlices, round: round, context
        ) { store, first, count in
            try await store.createConcurrently(
                deck, first: first, count: count, creators: creators, createdAt: BenchTime.start, ttl: 7 * BenchTime.day)
        }
        context.progress("group commit: \(configuration.createOnePerCommit) shares from a lone writer, with and without commit delay, round \(round + 1)")
        let lone = try await run(
            cases, count: configuration.createOnePerCommit, slices: configuration.slices, round: round, context
        ) { store, first, count in
            try store.createAlone(deck, first: first, count: count, createdAt: BenchTime.start, ttl: 7 * BenchTime.day)
        }

        for (index, delayCase) in cases.enumerated() {
            let totals = concurrent[index]
            measurements.record(
                delayCase.concurrentID, title: delayCase.concurrentTitle, unit: "creates/s", higherIsBetter: true,
                comparable: false, system: .shareLog, value: Double(totals.created) / totals.seconds)
            measurements.record(
                delayCase.concurrentID + ".sharesPerCommit", title: "  shares per durable commit", unit: "shares",
                higherIsBetter: true, comparable: false, system: .shareLog,
                value: Double(totals.created) / Double(max(totals.commits, 1)))
            measurements.record(
                delayCase.loneID, title: delayCase.loneTitle, unit: "ms/create", higherIsBetter: false,
                comparable: false, system: .shareLog, value: lone[index].seconds * 1000 / Double(lone[index].created))
        }
        let withDelay = Double(concurrent[0].created) / concurrent[0].seconds
        let withoutDelay = Double(concurrent[1].created) / concurrent[1].seconds
        if let sqliteOnePerCommit {
            measurements.record(
                "create.concurrent.delay.vsSQLiteOnePerCommit", title: "  with delay / SQLite one per commit", unit: "x",
                higherIsBetter: true, comparable: false, system: .shareLog, value: withDelay / sqliteOnePerCommit)
        }
        measurements.record(
            "create.concurrent.delay.vsNoDelay", title: "  with delay / without", unit: "x",
            higherIsBetter: true, comparable: false, system: .shareLog, value: withDelay / withoutDelay)
        measurements.record(
            "create.lone.delay.vsNoDelay", title: "  lone writer's time per create, with delay / without", unit: "x",
            higherIsBetter: false, comparable: false, system: .shareLog,
            value: (lone[0].seconds / Double(lone[0].created)) / (lone[1].seconds / Double(lone[1].created)))
    }

    /// Creates `count` shares in each case's fresh store, the cases taking
    /// turns over `slices` slices (rotated each slice and round), with `create`.
    private func run(
        _ cases: [DelayCase], count: Int, slices: Int, round: Int, _ context: BenchContext,
        create: (GroupCommitStore, _ first: Int, _ count: Int) async throws -> Timed<Int>
    ) async throws -> [Totals] {
        let paths = cases.indices.map { context.storePath("groupCommit\($0)", .shareLog) }
        var stores: [GroupCommitStore] = []
        defer {
            for store in stores { store.close() }
            for path in paths { context.remove(path) }
        }
        for (path, delayCase) in zip(paths, cases) {
            context.remove(path)
            stores.append(try GroupCommitStore(path: path, commitDelay: delayCase.delay))
        }
        let slice = max(1, count / slices)
        var totals = Array(repeating: Totals(), count: cases.count)
        for (index, first) in stride(from: 0, to: count, by: slice).enumerated() {
            let size = min(slice, count - first)
            for step in cases.indices {
                let which = (step + round + index) % cases.count
                let commitsBefore = stores[which].commits
                let created = try await create(stores[which], first, size)
                guard created.value == size else {
                    throw BenchError.mismatch("group commit created \(created.value) of \(size) shares")
                }
                totals[which].seconds += created.seconds
                totals[which].created += size
                totals[which].commits += stores[which].commits - commitsBefore
            }
        }
        return totals
    }
}
