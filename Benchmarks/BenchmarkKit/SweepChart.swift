import Foundation

/// The sweep chart: time per expired share against N, E fixed, one line per
/// embedded store, as gnuplot data and a script that draws `sweep.png`.
/// The data has a column for Redis too, which the chart leaves out: its
/// figure is how late its active expiry removes keys, up to 10,000 times
/// the others' when few keys are due, and on one axis with them it would
/// flatten their lines.
public enum SweepChart {
    /// Writes `sweep.dat` and `sweep.gp` into `directory`; `gnuplot sweep.gp`
    /// run there draws `sweep.png`. Nothing is written without sweep points.
    ///
    /// - Returns: the script's path, or nil.
    @discardableResult
    public static func write(_ report: BenchReport, to directory: String) throws -> String? {
        let due = report.configuration.sweepDue
        let figures = report.measurements.figures
            .filter { $0.id.hasPrefix("sweep.") && $0.id.hasSuffix(".e\(due)") }
            .compactMap { figure in Int(figure.id.dropFirst("sweep.n".count).prefix { $0.isNumber }).map { ($0, figure) } }
            .sorted { $0.0 < $1.0 }
        guard !figures.isEmpty else { return nil }
        var data = "# N  " + BenchSystem.allCases.map { "\($0.rawValue)(µs/share)" }.joined(separator: "  ") + "\n"
        for (total, figure) in figures {
            data += "\(total)  " + BenchSystem.allCases.map { String(format: "%.3f", figure.median($0) ?? .nan) }.joined(separator: "  ") + "\n"
        }
        let script = """
            set terminal pngcairo size 900,560 enhanced font 'sans,11'
            set output 'sweep.png'
            set title "Expiry sweep: time per expired share, E = \(Formatting.grouped(due)) due among N shares (\(report.configuration.mode) run, medians of \(report.configuration.sweepRounds))"
            set xlabel 'N, shares in the store'
            set ylabel 'µs per expired share (durable, batches of \(report.configuration.sweepBatch))'
            set logscale x
            set logscale y
            set format x '%.0s%c'
            set grid
            set key top left
            set xrange [\(figures.first!.0 / 2):\(figures.last!.0 * 2)]
            plot 'sweep.dat' using 1:2 with linespoints lw 2 pt 7 title 'ShareLog', \\
                 '' using 1:3 with linespoints lw 2 pt 5 title 'C-LMDB (same schema, raw LMDB)', \\
                 '' using 1:4 with linespoints lw 2 pt 9 title 'SQLite (chunked delete)'

            """
        let dataPath = (directory as NSString).appendingPathComponent("sweep.dat")
        let scriptPath = (directory as NSString).appendingPathComponent("sweep.gp")
        try data.write(toFile: dataPath, atomically: true, encoding: .utf8)
        try script.write(toFile: scriptPath, atomically: true, encoding: .utf8)
        return scriptPath
    }
}
