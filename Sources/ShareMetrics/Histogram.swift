/// Observations counted into buckets (a request's duration), per
/// combination of label values: the exposition's cumulative `_bucket`
/// lines, up to `+Inf`, with `_sum` and `_count`. Thread-safe; an
/// observation takes one lock and O(buckets) comparisons.
public final class Histogram: MetricFamily {
    /// Upper bounds in seconds for durations from half a millisecond to 10 s.
    public static let durationBuckets: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    public let name: String
    public let help: String
    public var type: MetricType { .histogram }
    /// The buckets' upper bounds, ascending; `+Inf` is implied.
    public let bounds: [Double]
    private let values: LabeledValues<Tally>

    /// Counts per bucket (not cumulative: the exposition adds them up),
    /// the last one for observations above every bound.
    struct Tally: Sendable {
        var counts: [UInt64]
        var sum: Double = 0
    }

    init(name: String, help: String, labelNames: [String], bounds: [Double]) {
        precondition(!bounds.isEmpty && zip(bounds, bounds.dropFirst()).allSatisfy { $0 < $1 }, "bucket bounds ascend")
        precondition(bounds.allSatisfy(\.isFinite), "bucket bounds are finite; +Inf is implied")
        self.name = name
        self.help = help
        self.bounds = bounds
        values = LabeledValues(labelNames: labelNames)
    }

    /// Counts `value` for `labelValues`, one per label name, in order.
    public func observe(_ value: Double, _ labelValues: String...) {
        let bucket = bounds.firstIndex { value <= $0 } ?? bounds.count
        values.update(labelValues, initial: Tally(counts: Array(repeating: 0, count: bounds.count + 1))) { tally in
            tally.counts[bucket] += 1
            tally.sum += value
        }
    }

    public func samples() -> [MetricSample] {
        values.snapshot().flatMap { entry -> [MetricSample] in
            var cumulative: UInt64 = 0
            var lines: [MetricSample] = []
            for (index, count) in entry.value.counts.enumerated() {
                cumulative += count
                let bound = index < bounds.count ? TextExposition.number(bounds[index]) : "+Inf"
                lines.append(MetricSample(suffix: "_bucket", labels: entry.labels + [(name: "le", value: bound)], value: Double(cumulative)))
            }
            lines.append(MetricSample(suffix: "_sum", labels: entry.labels, value: entry.value.sum))
            lines.append(MetricSample(suffix: "_count", labels: entry.labels, value: Double(cumulative)))
            return lines
        }
    }
}
