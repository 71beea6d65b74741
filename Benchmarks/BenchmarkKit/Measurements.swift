/// What the workloads of one run recorded, in the order they recorded it.
public struct Measurements: Codable, Sendable {
    public private(set) var figures: [Figure] = []
    /// Every round of the sweep as (system, N, E, µs per expired share), for
    /// plotting with other tools; the figures hold the same values by id.
    public private(set) var sweepPoints: [SweepPoint] = []
    /// RssAnon during each system's last replay.
    public private(set) var replayMemory: [MemoryTrace] = []

    public init() {}

    /// Adds one round's `value` of figure `id` for `system`, declaring the
    /// figure the first time.
    mutating func record(
        _ id: String, title: String, unit: String, higherIsBetter: Bool, comparable: Bool = true,
        system: BenchSystem, value: Double
    ) {
        record(id, title: title, unit: unit, higherIsBetter: higherIsBetter, comparable: comparable, systemName: system.rawValue, value: value)
    }

    /// As `record(_:title:unit:higherIsBetter:comparable:system:value:)`,
    /// for a system by name: the HTTP workload's anchors include nginx,
    /// which is no `BenchSystem` (it has no column in the main table).
    mutating func record(
        _ id: String, title: String, unit: String, higherIsBetter: Bool, comparable: Bool = true,
        systemName: String, value: Double
    ) {
        if let index = figures.firstIndex(where: { $0.id == id }) {
            figures[index].results[systemName, default: Sample(values: [])].values.append(value)
        } else {
            figures.append(Figure(
                id: id, title: title, unit: unit, higherIsBetter: higherIsBetter, comparable: comparable,
                results: [systemName: Sample(values: [value])]))
        }
    }

    mutating func record(_ point: SweepPoint) { sweepPoints.append(point) }

    mutating func record(_ trace: MemoryTrace) {
        replayMemory.removeAll { $0.system == trace.system }
        replayMemory.append(trace)
    }

    /// The figure `id`, if recorded.
    public func figure(_ id: String) -> Figure? { figures.first { $0.id == id } }
}

/// One round of a sweep: E due shares among N, for one system.
public struct SweepPoint: Codable, Sendable {
    public let system: BenchSystem
    public let total: Int
    public let due: Int
    public let microsecondsPerShare: Double
}

/// RssAnon of the benchmark process while one system replayed its log.
public struct MemoryTrace: Codable, Sendable {
    public let system: BenchSystem
    /// RssAnon just before the replay, KiB.
    public let beforeKiB: Int
    /// (events folded so far, RssAnon KiB) after each chunk.
    public let samples: [MemorySample]

    /// RssAnon growth over `beforeKiB` once `fraction` of the events were
    /// folded (the first sample at or past it), MiB.
    public func growthMiB(atFraction fraction: Double) -> Double {
        guard let total = samples.last?.events, total > 0 else { return 0 }
        let sample = samples.first { Double($0.events) >= fraction * Double(total) } ?? samples.last!
        return Double(sample.rssAnonKiB - beforeKiB) / 1024
    }

    /// The largest growth over `beforeKiB` during the replay, MiB.
    public var peakGrowthMiB: Double {
        Double((samples.map(\.rssAnonKiB).max() ?? beforeKiB) - beforeKiB) / 1024
    }
}

public struct MemorySample: Codable, Sendable {
    public let events: Int
    public let rssAnonKiB: Int
}
