/// A value that goes up and down (shares live, reader slots taken), per
/// combination of label values. Thread-safe.
public final class Gauge: MetricFamily {
    public let name: String
    public let help: String
    public var type: MetricType { .gauge }
    private let values: LabeledValues<Double>

    init(name: String, help: String, labelNames: [String]) {
        self.name = name
        self.help = help
        values = LabeledValues(labelNames: labelNames)
    }

    /// Sets the value for `labelValues`, one per label name, in order.
    public func set(_ value: Double, _ labelValues: String...) {
        values.update(labelValues, initial: value) { $0 = value }
    }

    /// Adds `delta` (negative to take away) to the value for `labelValues`.
    public func add(_ delta: Double, _ labelValues: String...) {
        values.update(labelValues, initial: 0) { $0 += delta }
    }

    /// Replaces every value, so that a combination missing from `new` (a
    /// peer no longer known) stops being exposed.
    public func replaceAll(_ new: [[String]: Double]) { values.replaceAll(new) }

    public func samples() -> [MetricSample] {
        values.snapshot().map { MetricSample(labels: $0.labels, value: $0.value) }
    }
}
