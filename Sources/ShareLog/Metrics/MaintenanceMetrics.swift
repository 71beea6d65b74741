import ShareMetrics
import SharePrimitives

/// What a process's maintenance passes did, as metrics (docs/OPERATIONS.md
/// "Metrics"): passes by result, when the last of each result was, the
/// sweep's and the compaction's durations, and their work since start.
/// `record` takes each pass a `MaintenanceScheduler` reports.
public final class MaintenanceMetrics: Sendable {
    private let passes: Counter
    private let lastPass: Gauge
    private let sweepDuration: Histogram
    private let compactionDuration: Histogram
    private let batches: Counter
    private let work: Counter

    /// Makes the maintenance families in `registry`.
    public init(registry: MetricsRegistry) {
        passes = registry.counter(
            "sharelog_maintenance_passes_total",
            "Maintenance passes by result: ran, skipped (another process maintains the store) or failed.", labels: ["result"])
        lastPass = registry.gauge(
            "sharelog_maintenance_last_pass_timestamp_seconds", "When the last pass of each result was (Unix time, the store's clock).",
            labels: ["result"])
        sweepDuration = registry.histogram("sharelog_sweep_duration_seconds", "Maintenance sweeps' durations.")
        compactionDuration = registry.histogram(
            "sharelog_compaction_duration_seconds", "Maintenance compactions' durations, the scrub of free pages included.")
        batches = registry.counter(
            "sharelog_maintenance_batches_total", "Write transactions of maintenance since start, by step (sweep, compaction).", labels: ["step"])
        work = registry.counter(
            "sharelog_maintenance_items_total",
            "What maintenance did since start: shares expired, cards redacted, free pages zeroed, ended shares and upload keys forgotten.", labels: ["item"])
        for result in ["ran", "skipped", "failed"] { passes.increment(by: 0, result) }
        for step in ["sweep", "compaction"] { batches.increment(by: 0, step) }
        for item in ["expired", "redacted", "zeroed_pages", "forgotten", "forgotten_keys"] { work.increment(by: 0, item) }
    }

    /// Counts one pass; a failure is stamped with `now`, the time of the
    /// store's clock it failed at.
    public func record(_ outcome: Result<MaintenanceReport, ShareLogError>, now: @autoclosure () -> Timestamp) {
        switch outcome {
        case .failure:
            passes.increment("failed")
            lastPass.set(Double(now().milliseconds) / 1000, "failed")
        case .success(let report) where !report.ran:
            passes.increment("skipped")
            lastPass.set(Double(report.at.milliseconds) / 1000, "skipped")
        case .success(let report):
            passes.increment("ran")
            lastPass.set(Double(report.at.milliseconds) / 1000, "ran")
            sweepDuration.observe(report.sweepDuration.fractionalSeconds)
            batches.increment(by: Double(report.sweep.batches), "sweep")
            work.increment(by: Double(report.sweep.expired), "expired")
            if let compaction = report.compaction, let duration = report.compactionDuration {
                compactionDuration.observe(duration.fractionalSeconds)
                batches.increment(by: Double(compaction.batches), "compaction")
                work.increment(by: Double(compaction.redacted), "redacted")
                work.increment(by: Double(compaction.scrub?.freePagesZeroed ?? 0), "zeroed_pages")
            }
            if let trim = report.trim { work.increment(by: Double(trim.shares), "forgotten") }
            if let keys = report.forgottenKeys { work.increment(by: Double(keys), "forgotten_keys") }
        }
    }
}
