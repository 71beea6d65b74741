import SharePrimitives

/// The state behind a family: one value per combination of label values,
/// under a lock. What `Counter`, `Gauge` and `Histogram` share.
struct LabeledValues<Value: Sendable>: Sendable {
    let labelNames: [String]
    private let values: Locked<[[String]: Value]>

    init(labelNames: [String]) {
        precondition(labelNames.allSatisfy(MetricName.isValidLabel), "invalid label names \(labelNames)")
        precondition(Set(labelNames).count == labelNames.count, "a label name appears twice in \(labelNames)")
        self.labelNames = labelNames
        values = Locked([:])
    }

    /// Changes the value for `labelValues`, starting from `initial` when
    /// there is none yet.
    func update(_ labelValues: [String], initial: Value, _ body: (inout Value) -> Void) {
        precondition(labelValues.count == labelNames.count, "\(labelNames.count) label values expected, got \(labelValues)")
        values.withLock { values in body(&values[labelValues, default: initial]) }
    }

    /// Every combination there is a value for, in the order of their label
    /// values.
    func snapshot() -> [(labels: [(name: String, value: String)], value: Value)] {
        values.withLock { $0 }.sorted { $0.key.lexicographicallyPrecedes($1.key) }.map { entry in
            (labels: Array(zip(labelNames, entry.key)).map { (name: $0.0, value: $0.1) }, value: entry.value)
        }
    }

    func value(_ labelValues: [String]) -> Value? { values.withLock { $0[labelValues] } }

    /// Replaces every value: for families whose label sets come and go
    /// (one gauge per peer).
    func replaceAll(_ new: [[String]: Value]) {
        precondition(new.keys.allSatisfy { $0.count == labelNames.count }, "\(labelNames.count) label values expected")
        values.withLock { $0 = new }
    }
}
