/// Durations of many single operations, in seconds, and their percentiles.
struct Latencies: Sendable {
    private(set) var seconds: [Double] = []

    init(_ seconds: [Double] = []) { self.seconds = seconds }

    mutating func append(_ value: Double) { seconds.append(value) }
    mutating func append(contentsOf other: Latencies) { seconds += other.seconds }

    /// The value below which a fraction `p` (0 ... 1) of the durations
    /// fall: the nearest rank, so every percentile is a measured duration.
    ///
    /// - Precondition: at least one duration.
    func percentile(_ p: Double) -> Double {
        precondition(!seconds.isEmpty, "a percentile of no durations")
        let sorted = seconds.sorted()
        let rank = Int((p * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    /// The percentile `p` in milliseconds.
    func milliseconds(_ p: Double) -> Double { percentile(p) * 1000 }
}
