import ShareMetrics

/// A relay's statistics as metrics, read at each scrape
/// (docs/OPERATIONS.md "Metrics"): what it published and consumed (rates
/// come from Prometheus's `rate()` over these counters), its place in the
/// stream, and the troubles it waited out.
public enum RelayMetrics {
    /// Makes the relay's families in `registry`, read from `statistics`
    /// before each scrape.
    public static func register(_ statistics: RelayStatistics, in registry: MetricsRegistry) {
        let published = registry.counter(
            "sharelog_relay_published_total", "This replica's events the stream acknowledged, by whether the stream already held them (a retry).",
            labels: ["duplicate"])
        let consumed = registry.counter(
            "sharelog_relay_consumed_total", "Messages fetched from the stream, by whether their event was new here.", labels: ["new"])
        let position = registry.gauge("sharelog_relay_stream_position", "The last stream sequence this store committed.")
        let pending = registry.gauge("sharelog_relay_stream_pending", "Messages the consumer had not delivered yet, at the last fetch.")
        let troubles = registry.counter(
            "sharelog_relay_events_total",
            "What the relay lived through: retries (connection or cluster errors waited out), snapshots, consumers made, messages deleted in the stream.",
            labels: ["event"])
        registry.beforeEachScrape {
            let counts = statistics.current
            published.record(total: Double(counts.published - counts.duplicatesPublished), "false")
            published.record(total: Double(counts.duplicatesPublished), "true")
            consumed.record(total: Double(counts.applied), "true")
            consumed.record(total: Double(counts.received - counts.applied), "false")
            position.set(Double(counts.streamPosition))
            pending.set(Double(counts.streamPending))
            troubles.record(total: Double(counts.retries), "retry")
            troubles.record(total: Double(counts.snapshots), "snapshot")
            troubles.record(total: Double(counts.consumersMade), "consumer_made")
            troubles.record(total: Double(counts.deletedInStream), "deleted_in_stream")
        }
    }
}
