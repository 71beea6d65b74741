/// The HTTP workload's rows as their own table (issue 26): the gateway,
/// nginx and Redis, and the gateway's speed ratios to each (above 1x the
/// gateway is better: for times and CPU, the other's value over the
/// gateway's). nginx is no `BenchSystem`, so these rows stay out of the
/// main table.
enum HTTPReportTable {
    private static let columns = [("ShareLog", "gateway"), ("nginx", "nginx"), ("Redis", "Redis")]

    /// Whether `figure` is one of the HTTP workload's.
    static func owns(_ figure: Figure) -> Bool { figure.id.hasPrefix("http.") }

    /// The table and its notes; nil when the run has no HTTP rows.
    static func render(_ report: BenchReport) -> [String]? {
        let figures = report.measurements.figures.filter(owns)
        guard !figures.isEmpty else { return nil }
        var rows = [["HTTP workload (issue 26)", "unit"] + columns.map(\.1) + ["gateway/nginx", "gateway/Redis"]]
        for figure in figures {
            let values = columns.map { figure.results[$0.0]?.median }
            let ratios = ["nginx", "Redis"].map { other -> String in
                guard figure.comparable, let mine = figure.results["ShareLog"]?.median, let theirs = figure.results[other]?.median,
                      mine > 0, theirs > 0 else { return "—" }
                return Formatting.ratio(figure.higherIsBetter ? mine / theirs : theirs / mine)
            }
            rows.append([figure.title, figure.unit] + values.map { $0.map(Formatting.value) ?? "—" } + ratios)
        }
        let widths = (0..<rows[0].count).map { column in rows.map { $0[column].count }.max()! }
        var lines = rows.map { row in
            row.enumerated().map { column, cell in
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                return column < 2 ? cell + pad : pad + cell
            }.joined(separator: "  ")
        }
        lines.insert(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  "), at: 1)
        lines.append("")
        if let http = report.configuration.http {
            lines.append("HTTP rows: medians of \(http.rounds) rounds of \(http.seconds) s runs of Debian's wrk per system (order rotated), "
                + "\(Formatting.grouped(http.shares)) shares of the 9:1 mix, ids 9 live : 1 unknown; the gateway is `sharelog-bench http` "
                + "(the library calls of `sharelog http`, rate limits off, access log to /dev/null), nginx serves the same bytes as files "
                + "(open_file_cache, access_log off), Redis is the harness's GET over its Unix socket from client threads "
                + "(a connection per GET in the close rows). Ratios are speed ratios: above 1x the gateway is better.")
        }
        lines.append("wrk is a closed loop (a slow answer delays the requests behind it instead of being timed with them) and times "
            + "from request write to answer (not the connect or TLS handshake): its p99 under-reports the tail.")
        if let pinning = report.machine.httpPinning { lines.append("Cores: \(pinning).") }
        if let software = report.machine.httpSoftware { lines.append("Software: \(software).") }
        return lines
    }
}
