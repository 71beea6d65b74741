/// The HTTP workload's rows as their own table (issue 26): the gateway,
/// nginx and Redis, and the gateway's speed ratios to each (above 1x the
/// gateway is better: for times and CPU, the other's value over the
/// gateway's). nginx is no `BenchSystem`, so these rows stay out of the
/// main table.
enum HTTPReportTable {
    private static let columns = [(system: "ShareLog", header: "gateway"), ("nginx", "nginx"), ("Redis", "Redis")]

    /// Whether `figure` is one of the HTTP workload's.
    static func owns(_ figure: Figure) -> Bool { figure.id.hasPrefix("http.") }

    /// The table and its notes; nil when the run has no HTTP rows.
    static func render(_ report: BenchReport) -> [String]? {
        let figures = report.measurements.figures.filter(owns)
        guard !figures.isEmpty else { return nil }
        let rows = TextTable.gatewayRows(figures, heading: "HTTP workload (issue 26)", columns: columns)
        var lines = TextTable.lines(rows)
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
