import Foundation

/// The follow-latency chart: p50 and p99 of ShareLog's follow latency
/// beside its anchors (the durable commit alone, a socket round trip) and
/// Redis's replication delay and `SET`, with the goal (2x the commit plus
/// the round trip, at p50) as a line, drawn by gnuplot as `follow.png`.
/// "ShareLog commit" and "Redis SET" are each system's durable write on
/// main alone.
public enum FollowChart {
    /// Writes `follow.dat` and `follow.gp` into `directory`; `gnuplot
    /// follow.gp` run there draws `follow.png`. Nothing is written when the
    /// follow workload did not run.
    ///
    /// - Returns: the script's path, or nil.
    @discardableResult
    public static func write(_ report: BenchReport, to directory: String) throws -> String? {
        let figures = report.measurements
        func value(_ id: String, _ system: BenchSystem) -> Double? { figures.figure(id)?.median(system) }
        let bars: [(label: String, id: String, system: BenchSystem)] = [
            ("ShareLog follow", "sync.follow", .shareLog),
            ("ShareLog commit", "sync.follow.commit", .shareLog),
            ("socket round trip", "sync.follow.roundTrip", .shareLog),
            ("Redis replication", "sync.follow", .redis),
            ("Redis SET", "sync.follow.commit", .redis),
        ]
        guard let commit = value("sync.follow.commit.p50", .shareLog), let roundTrip = value("sync.follow.roundTrip.p50", .shareLog) else {
            return nil
        }
        var data = "# what  p50(ms)  p99(ms)\n"
        for bar in bars {
            let p50 = value(bar.id + ".p50", bar.system) ?? .nan, p99 = value(bar.id + ".p99", bar.system) ?? .nan
            data += "\"\(bar.label)\"  \(String(format: "%.4f", p50))  \(String(format: "%.4f", p99))\n"
        }
        let goal = 2 * (commit + roundTrip)
        let script = """
            set terminal pngcairo size 1000,560 enhanced font 'sans,11'
            set output 'follow.png'
            set title "Follow latency: a share's commit on main to its commit on the follower (\(report.configuration.mode) run, \(Formatting.grouped(report.configuration.syncFollowShares)) shares)"
            set ylabel 'ms (log scale)'
            set logscale y
            set grid ytics
            set style data histogram
            set style histogram clustered gap 1
            set style fill solid 0.8 border -1
            set boxwidth 0.9
            set key top right
            set xtics noenhanced
            set arrow from graph 0, first \(String(format: "%.4f", goal)) to graph 1, first \(String(format: "%.4f", goal)) nohead dt 2 lw 2 lc rgb '#c00000'
            set label 'goal for the p50: 2 x (commit + round trip) = \(String(format: "%.2f", goal)) ms' at graph 0.02, first \(String(format: "%.4f", goal * 1.15)) tc rgb '#c00000'
            plot 'follow.dat' using 2:xtic(1) title 'p50', '' using 3 title 'p99'

            """
        try data.write(toFile: (directory as NSString).appendingPathComponent("follow.dat"), atomically: true, encoding: .utf8)
        let scriptPath = (directory as NSString).appendingPathComponent("follow.gp")
        try script.write(toFile: scriptPath, atomically: true, encoding: .utf8)
        return scriptPath
    }
}
