import Foundation

/// Workloads 2 and 5, on one store per system of `readStoreShares` shares
/// (9:1 mixed cards):
/// - fetch by id: random existing ids plus a tenth that exist nowhere, the
///   same ids for every system, from 1 and from 2 threads (Redis: clients,
///   each on its own connection); every system must find the same shares
///   and bytes;
/// - Redis's memory per share: its `used_memory` growth over the fill,
///   divided by the shares;
/// - the clip's cold start, for the embedded stores: fresh processes, each
///   opening the store, fetching one share and exiting, with the stores
///   closed in this process; and, for scale, processes that only start and
///   exit.
public struct ReadWorkload: Workload {
    public let name = "read"

    public init() {}

    public func run(in context: BenchContext, recording measurements: inout Measurements) async throws {
        let configuration = context.configuration
        let deck = CardDeck(mixed: true, pool: configuration.cardPool)
        var stores: [BenchSystem: any BenchStore] = [:]
        var names: [BenchSystem: [UInt8]] = [:]
        defer {
            for store in stores.values { store.close() }
            for system in BenchSystem.allCases { context.remove(context.storePath("read", system)) }
        }
        let parts = [FillPart.live(configuration.readStoreShares)]
        for system in BenchSystem.embedded {
            context.progress("read: filling \(Formatting.grouped(configuration.readStoreShares)) shares, \(system.rawValue)")
            let filled = try await context.filledLoggedStore(system, at: context.storePath("read", system), deck: deck, parts: parts)
            stores[system] = filled.store
            names[system] = filled.names
        }
        context.progress("read: filling \(Formatting.grouped(configuration.readStoreShares)) shares, Redis")
        let redis = try await context.filledRedis(at: context.storePath("read", .redis), deck: deck, parts: parts)
        stores[.redis] = redis.store
        names[.redis] = redis.names
        let memory = try redis.store.memoryGrowth()
        try fetch(stores, names, context, &measurements)
        measurements.record(
            "memory.perShare", title: "memory per share, 9:1 mix (Redis used_memory)", unit: "KiB", higherIsBetter: false,
            comparable: false, system: .redis, value: Double(memory) / 1024 / Double(configuration.readStoreShares))
        for store in stores.values { store.close() }
        stores = [:]
        try coldStart(names, context, &measurements)
    }

    private func fetch(
        _ stores: [BenchSystem: any BenchStore], _ names: [BenchSystem: [UInt8]], _ context: BenchContext,
        _ measurements: inout Measurements
    ) throws {
        let configuration = context.configuration
        let plan = FetchPlan(
            count: configuration.fetches, existing: configuration.readStoreShares,
            missingFraction: configuration.missingFraction, seed: 0x5EED)
        let ids = names.mapValues(plan.names(from:))
        let now = BenchTime.start + BenchTime.hour
        let slices = max(1, min(configuration.slices, configuration.fetches))
        let bounds = (0...slices).map { 16 * (configuration.fetches * $0 / slices) }
        for round in 0..<configuration.rounds {
            for threads in configuration.fetchThreads {
                context.progress("fetch: \(Formatting.grouped(configuration.fetches)) ids per system, \(threads) thread(s), round \(round + 1)")
                var tallies: [BenchSystem: FetchTally] = [:]
                var seconds: [BenchSystem: Double] = [:]
                for slice in 0..<slices {
                    for system in BenchSystem.order(forRound: round + slice) {
                        let fetched = try stores[system]!.fetch(
                            Array(ids[system]![bounds[slice]..<bounds[slice + 1]]), threads: threads, at: now)
                        tallies[system, default: FetchTally()].add(fetched.value)
                        seconds[system, default: 0] += fetched.seconds
                    }
                }
                for (system, seconds) in seconds {
                    measurements.record(
                        "fetch.threads\(threads)", title: "fetch by id, \(threads) thread\(threads == 1 ? "" : "s")",
                        unit: "fetches/s", higherIsBetter: true, system: system, value: Double(configuration.fetches) / seconds)
                }
                let first = tallies[.shareLog]!
                guard tallies.values.allSatisfy({ $0 == first }), first.expired == 0 else {
                    throw BenchError.mismatch("fetch tallies differ: \(tallies)")
                }
            }
        }
    }

    /// One variant of ShareLog's process: how its Swift runtime is linked.
    private struct Linking {
        let id: String
        let title: String
        /// A `sharelog-cold` linked this way.
        let cold: String
    }

    private func coldStart(_ names: [BenchSystem: [UInt8]], _ context: BenchContext, _ measurements: inout Measurements) throws {
        let configuration = context.configuration
        let executables = context.executables
        let now = BenchTime.start + BenchTime.hour
        var linkings = [Linking(id: "coldStart", title: "clip cold start: open, fetch one, exit", cold: executables.cold)]
        if let staticCold = executables.staticCold {
            linkings.append(Linking(id: "coldStart.static", title: "clip cold start, Swift runtime linked statically", cold: staticCold))
        }
        // Card 1 is a small card; any share would do.
        let ids = names.mapValues { ShareLogBenchStore.recordNames(from: Array($0[16..<32]))[0].description }
        for linking in linkings {
            var commands: [BenchSystem: [String]] = [:]
            for system in BenchSystem.embedded {
                commands[system] = ColdStart.command(
                    system, store: context.storePath("read", system), id: ids[system]!, now: now, cold: linking.cold, executables)
                try ColdStart.check(commands[system]!, prints: "live")
            }
            context.progress("\(linking.title): \(configuration.coldStarts) processes per system")
            for run in 0..<configuration.coldStarts {
                for system in BenchSystem.order(forRound: run, among: BenchSystem.embedded) {
                    measurements.record(
                        linking.id, title: linking.title, unit: "ms", higherIsBetter: false,
                        system: system, value: try ColdStart.time(commands[system]!) * 1000)
                }
                for system in [BenchSystem.shareLog, .cLMDB] {
                    measurements.record(
                        linking.id + ".processOnly", title: "  of which: process start and exit", unit: "ms",
                        higherIsBetter: false, system: system,
                        value: try ColdStart.time(ColdStart.noopCommand(system, cold: linking.cold, executables)) * 1000)
                }
            }
        }
    }
}
