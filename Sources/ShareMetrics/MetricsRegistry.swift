import SharePrimitives

/// The metrics a process exposes: families made here, in the order they
/// were made, and updates run just before each exposition (for values read
/// from elsewhere at scrape time, such as a store's counts).
///
/// Thread-safe. Making a family with a name already taken, or a name or
/// label the format does not allow, is a programming error and stops the
/// process.
public final class MetricsRegistry: Sendable {
    private struct State {
        var families: [any MetricFamily] = []
        var beforeScrape: [@Sendable () -> Void] = []
    }

    private let state = Locked(State())

    public init() {}

    /// A counter; its name ends in `_total`.
    public func counter(_ name: String, _ help: String, labels: [String] = []) -> Counter {
        precondition(name.hasSuffix("_total"), "a counter's name ends in _total: \(name)")
        return add(Counter(name: name, help: help, labelNames: labels))
    }

    public func gauge(_ name: String, _ help: String, labels: [String] = []) -> Gauge {
        add(Gauge(name: name, help: help, labelNames: labels))
    }

    /// A histogram with `buckets` (ascending upper bounds; `+Inf` is implied).
    public func histogram(_ name: String, _ help: String, labels: [String] = [], buckets: [Double] = Histogram.durationBuckets) -> Histogram {
        add(Histogram(name: name, help: help, labelNames: labels, bounds: buckets))
    }

    /// Runs `update` before each exposition, on the scraping thread, in the
    /// order these were added. It should be quick: a scrape waits for it.
    public func beforeEachScrape(_ update: @escaping @Sendable () -> Void) {
        state.withLock { $0.beforeScrape.append(update) }
    }

    /// Runs the updates, then renders every family (`TextExposition`).
    public func exposition() -> String {
        let (families, updates) = state.withLock { ($0.families, $0.beforeScrape) }
        for update in updates { update() }
        return TextExposition.render(families)
    }

    private func add<Family: MetricFamily>(_ family: Family) -> Family {
        precondition(MetricName.isValid(family.name), "invalid metric name \(family.name)")
        state.withLock { state in
            precondition(!state.families.contains { $0.name == family.name }, "metric \(family.name) is made twice")
            state.families.append(family)
        }
        return family
    }
}
