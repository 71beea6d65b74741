/// A value that only goes up (requests answered, sessions ended), per
/// combination of label values. Thread-safe; an increment takes one lock.
public final class Counter: MetricFamily {
    public let name: String
    public let help: String
    public var type: MetricType { .counter }
    private let values: LabeledValues<Double>

    init(name: String, help: String, labelNames: [String]) {
        self.name = name
        self.help = help
        values = LabeledValues(labelNames: labelNames)
    }

    /// Adds `amount` (0 or more) to the count for `labelValues`, one per
    /// label name, in order.
    public func increment(by amount: Double = 1, _ labelValues: String...) {
        precondition(amount >= 0, "a counter never goes down")
        values.update(labelValues, initial: 0) { $0 += amount }
    }

    /// Takes a running total that something else keeps (the relay's
    /// statistics, read at each scrape). A total lower than the count is
    /// ignored: a counter never goes down.
    public func record(total: Double, _ labelValues: String...) {
        values.update(labelValues, initial: 0) { $0 = max($0, total) }
    }

    /// The count for `labelValues`, 0 if there is none yet.
    public func value(_ labelValues: String...) -> Double { values.value(labelValues) ?? 0 }

    public func samples() -> [MetricSample] {
        values.snapshot().map { MetricSample(labels: $0.labels, value: $0.value) }
    }
}
