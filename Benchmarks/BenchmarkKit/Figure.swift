/// One row of the results: a quantity measured for one or more systems.
public struct Figure: Codable, Sendable {
    /// A stable key, e.g. `fetch.threads1`, `sweep.n100000.e10000`.
    public let id: String
    /// What it measures, as the table shows it.
    public let title: String
    /// e.g. `creates/s`, `µs/share`, `ms`.
    public let unit: String
    /// True for throughputs, false for times and memory.
    public let higherIsBetter: Bool
    /// False for figures whose ratios say nothing (memory growth near zero).
    public let comparable: Bool
    /// Per system (keyed by `BenchSystem.rawValue`): every round's value and the median.
    public var results: [String: Sample]

    /// The median for `system`, if it was measured.
    public func median(_ system: BenchSystem) -> Double? { results[system.rawValue]?.median }

    /// How much faster ShareLog is than `other`: above 1 ShareLog is
    /// faster, below 1 slower, whatever the unit. Nil when either is missing.
    public func speedRatio(versus other: BenchSystem) -> Double? {
        guard comparable, let mine = median(.shareLog), let theirs = median(other), mine > 0, theirs > 0 else { return nil }
        return higherIsBetter ? mine / theirs : theirs / mine
    }
}

/// Every round's value of one figure for one system.
public struct Sample: Codable, Sendable {
    public var values: [Double]

    /// The median of the rounds (the mean of the middle two for an even count).
    public var median: Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// (max - min) / median: how much the rounds disagree.
    public var spread: Double {
        guard let low = values.min(), let high = values.max(), median > 0 else { return 0 }
        return (high - low) / median
    }
}

extension Sample {
    enum CodingKeys: String, CodingKey { case values, median, spread }

    public init(from decoder: any Decoder) throws {
        values = try decoder.container(keyedBy: CodingKeys.self).decode([Double].self, forKey: .values)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(values, forKey: .values)
        try container.encode(median, forKey: .median)
        try container.encode(spread, forKey: .spread)
    }
}
