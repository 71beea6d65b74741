/// One of the figures issues 4, 11 and 15 ask for, and whether this run reached
/// it. Where issue 11 raised a goal of issue 4's, the raised one is checked.
public struct TargetResult: Codable, Sendable {
    public let id: String
    /// The target as the issue states it.
    public let statement: String
    /// The measured value the target is about (a ratio, MiB, or ms of CPU
    /// per minute).
    public let value: Double
    public let threshold: Double
    /// True when `value` must be at least `threshold`, false for at most.
    public let atLeast: Bool
    /// What the value is made of.
    public let detail: String

    public var met: Bool { atLeast ? value >= threshold : value <= threshold }

    /// The issue's targets, evaluated on the medians of `measurements`. A
    /// target whose figures were not measured (a workload left out) is absent.
    public static func evaluate(_ measurements: Measurements, _ configuration: BenchConfiguration) -> [TargetResult] {
        var results: [TargetResult] = []
        func ratio(_ id: String, _ other: BenchSystem) -> Double? { measurements.figure(id)?.speedRatio(versus: other) }
        func fmt(_ value: Double?) -> String { Formatting.ratio(value) }

        let fetchIDs = measurements.figures.map(\.id).filter { $0.hasPrefix("fetch.") }
        for (other, threshold) in [(BenchSystem.cLMDB, 0.9), (.sqlite, 2.5)] {
            let ratios = fetchIDs.compactMap { id in ratio(id, other).map { (id, $0) } }
            if let worst = ratios.map(\.1).min() {
                results.append(TargetResult(
                    id: "fetch.vs\(other.rawValue)", statement: "fetch by id ≥ \(threshold)x \(other.rawValue)",
                    value: worst, threshold: threshold, atLeast: true,
                    detail: ratios.map { "\($0.0.replacingOccurrences(of: "fetch.threads", with: "")) thread(s) \(fmt($0.1))" }
                        .joined(separator: ", ")))
            }
        }
        for (other, threshold) in [(BenchSystem.cLMDB, 0.85), (.sqlite, 10.0)] {
            if let value = ratio("create.batched", other) {
                results.append(TargetResult(
                    id: "batched.vs\(other.rawValue)", statement: "batched durable creates ≥ \(threshold)x \(other.rawValue)",
                    value: value, threshold: threshold, atLeast: true, detail: "batches of 1,000"))
            }
        }
        if let written = measurements.figure("create.batched.written"),
           let mine = written.median(.shareLog), let sqlite = written.median(.sqlite) {
            results.append(TargetResult(
                id: "batched.bytesVsSQLite", statement: "batched creates write ≤ 0.6x SQLite's bytes per share",
                value: mine / sqlite, threshold: 0.6, atLeast: false,
                detail: String(format: "%.2f KiB vs %.2f KiB a share", mine, sqlite)))
        }
        if let mine = measurements.figure("create.concurrent")?.median(.shareLog),
           let sqlite = measurements.figure("create.onePerCommit")?.median(.sqlite) {
            results.append(TargetResult(
                id: "concurrent.vsSQLiteOnePerCommit",
                statement: "concurrent creates with group commit ≥ 3x SQLite one-per-commit",
                value: mine / sqlite, threshold: 3, atLeast: true,
                detail: "ShareLog 8 tasks vs SQLite one share per commit, one thread; vs SQLite with 8 threads: "
                    + fmt(ratio("create.concurrent", .sqlite))))
        }
        results += sweepTargets(measurements, due: configuration.sweepDue)
        if let value = ratio("replay", .cLMDB) {
            results.append(TargetResult(
                id: "replay.vsC-LMDB", statement: "log replay ≥ 0.5x C-LMDB",
                value: value, threshold: 0.5, atLeast: true, detail: "events/s, rebuild and compare"))
        }
        if let half = measurements.figure("replay.rssAnonHalf")?.median(.shareLog),
           let peak = measurements.figure("replay.rssAnonPeak")?.median(.shareLog) {
            results.append(TargetResult(
                id: "replay.rssAnonFlat",
                statement: "replay RssAnon flat in events (growth over the second half of the events ≤ 16 MiB)",
                value: peak - half, threshold: 16, atLeast: false,
                detail: String(format: "%.1f MiB at half the events, %.1f MiB peak, over RssAnon before the replay", half, peak)))
        }
        for (id, linking) in [("coldStart", "Swift runtime as shared libraries, swift build's default"),
                              ("coldStart.static", "Swift runtime linked statically")] {
            guard let figure = measurements.figure(id), let mine = figure.median(.shareLog), let c = figure.median(.cLMDB) else {
                continue
            }
            let processOnly = measurements.figure(id + ".processOnly")
            let startRatio = processOnly.flatMap { f in f.median(.shareLog).flatMap { s in f.median(.cLMDB).map { s / $0 } } }
            results.append(TargetResult(
                id: id + ".vsC-LMDB", statement: "clip cold start within 2x of C-LMDB (\(linking); time ratio ≤ 2)",
                value: mine / c, threshold: 2, atLeast: false,
                detail: "ShareLog time / C time; of which process start alone: " + (startRatio.map { String(format: "%.2fx", $0) } ?? "—")))
        }
        return results + syncTargets(measurements, configuration) + httpTargets(measurements, configuration)
            + uploadTargets(measurements, configuration)
    }

    /// Flatness, the SQLite ratios and the disk floor over the series with
    /// E = `due` (issue 11): N=largest within 1.3x of N=smallest; ≥ 3x
    /// SQLite from N = 100k on and ≥ 2x below; within 2x of the floor.
    private static func sweepTargets(_ measurements: Measurements, due: Int) -> [TargetResult] {
        let series = measurements.figures.filter { $0.id.hasPrefix("sweep.") && $0.id.hasSuffix(".e\(due)") }
        let byTotal = series.compactMap { figure -> (total: Int, figure: Figure)? in
            guard let total = Int(figure.id.dropFirst("sweep.n".count).prefix { $0.isNumber }) else { return nil }
            return (total, figure)
        }.sorted { $0.total < $1.total }
        guard let smallest = byTotal.first, let largest = byTotal.last,
              let small = smallest.figure.median(.shareLog), let large = largest.figure.median(.shareLog) else { return [] }
        var results = [TargetResult(
            id: "sweep.flat", statement: "sweep time per expired share flat in N (largest N within 1.3x of smallest)",
            value: large / small, threshold: 1.3, atLeast: false,
            detail: "E=\(Formatting.count(due)): N=\(Formatting.count(largest.total)) vs N=\(Formatting.count(smallest.total))")]
        for (range, threshold) in [(0..<100_000, 2.0), (100_000..<Int.max, 3.0)] {
            let ratios = byTotal.filter { range.contains($0.total) }
                .compactMap { point in point.figure.speedRatio(versus: .sqlite).map { (point.total, $0) } }
            guard let worst = ratios.map(\.1).min() else { continue }
            results.append(TargetResult(
                id: "sweep.vsSQLite.\(range.lowerBound)", statement: "sweep ≥ \(Formatting.ratio(threshold)) faster than SQLite's chunked delete"
                    + (range.lowerBound == 0 ? " below N=100k" : " from N=100k"),
                value: worst, threshold: threshold, atLeast: true,
                detail: ratios.map { "N=\(Formatting.count($0.0)) \(Formatting.ratio($0.1))" }.joined(separator: ", ")))
        }
        let floors = byTotal.compactMap { point -> (Int, Double)? in
            guard let time = point.figure.median(.shareLog),
                  let floor = measurements.figure(point.figure.id + ".floor")?.median(.shareLog), floor > 0 else { return nil }
            return (point.total, time / floor)
        }
        if let worst = floors.map(\.1).max() {
            results.append(TargetResult(
                id: "sweep.floor", statement: "sweep within 2x of the disk's floor (time / floor ≤ 2)",
                value: worst, threshold: 2, atLeast: false,
                detail: floors.map { "N=\(Formatting.count($0.0)) \(String(format: "%.1fx", $0.1))" }.joined(separator: ", ")))
        }
        return results
    }
}
