/// The run's results as a text table: one row per figure with each system's
/// median, and ShareLog's speed ratio to each baseline (above 1: ShareLog is
/// faster; for times, the baseline's time over ShareLog's). Then the targets.
public enum ReportTable {
    /// The baselines, in column order, with their ratio columns' headers.
    private static let baselines: [(system: BenchSystem, ratio: String)] = [
        (.cLMDB, "ShareLog/C"), (.sqlite, "ShareLog/SQLite"), (.redis, "ShareLog/Redis"),
    ]

    public static func render(_ report: BenchReport) -> String {
        var rows = [["workload", "unit"] + BenchSystem.allCases.map(\.rawValue) + baselines.map(\.ratio)]
        for figure in report.measurements.figures where !HTTPReportTable.owns(figure) && !UploadReportTable.owns(figure) {
            rows.append(
                [figure.title, figure.unit]
                    + BenchSystem.allCases.map { figure.median($0).map(Formatting.value) ?? "—" }
                    + baselines.map { Formatting.ratio(figure.speedRatio(versus: $0.system)) })
        }
        var lines = TextTable.lines(rows)
        lines.append("")
        let configuration = report.configuration
        lines.append("Medians of \(configuration.rounds) rounds (sweep \(configuration.sweepRounds), replay \(configuration.replayRounds), "
            + "cold start \(configuration.coldStarts) processes, sync \(configuration.syncRounds)); ratios are speed ratios: above 1x ShareLog is faster.")
        lines.append("Redis's sweep rows: from the moment its keys fall due until its active expiry has removed them, "
            + "per key removed within \(configuration.redisExpiryDeadline) s (BENCHMARKS.md).")
        if report.measurements.figure("sync.follow.p50") != nil {
            lines.append("Sync rows: the anchors are in the ShareLog column (local ingest, socket alone, commit alone, round trip); "
                + "Redis's catch-up is a replica's full sync until its AOF is written; latencies are percentiles of every operation.")
        }
        if report.measurements.figure("sync.relay.catchup") != nil {
            lines.append("Relay rows (issue 16): `sharelog-bench relay` peers on a 3-server JetStream cluster on loopback, "
                + "the stream replicated 3 times; the anchors are ShareLog's direct sync, in the same rounds; "
                + "delays are percentiles of every share.")
        }
        if let http = HTTPReportTable.render(report) {
            lines.append("")
            lines += http
        }
        if let upload = UploadReportTable.render(report) {
            lines.append("")
            lines += upload
        }
        lines.append("")
        lines.append("Targets (issues 4, 11, 15, 26, 29 and 32):")
        for target in report.targets {
            let value = target.id.hasSuffix("rssAnonFlat") ? Formatting.value(target.value) + " MiB"
                : target.id.hasSuffix("idleCPU") ? Formatting.value(target.value) + " ms per minute" : Formatting.ratio(target.value)
            lines.append("  [\(target.met ? "met" : "NOT met")] \(target.statement): \(value) (\(target.detail))")
        }
        return lines.joined(separator: "\n")
    }
}
