/// The upload workload's rows as their own table (issue 32): the gateway
/// over HTTP, the library's `create` and SQLite's insert, and the
/// gateway's speed ratios to each (`TextTable.gatewayRows`). The
/// library is no `BenchSystem` column of its own, so these rows stay out
/// of the main table.
enum UploadReportTable {
    private static let columns = [(system: "ShareLog", header: "gateway"), ("library", "library"), ("SQLite", "SQLite")]

    /// Whether `figure` is one of the upload workload's.
    static func owns(_ figure: Figure) -> Bool { figure.id.hasPrefix("upload.") }

    /// The table and its notes; nil when the run has no upload rows.
    static func render(_ report: BenchReport) -> [String]? {
        let figures = report.measurements.figures.filter(owns)
        guard !figures.isEmpty else { return nil }
        let rows = TextTable.gatewayRows(figures, heading: "Upload workload (issue 32)", columns: columns)
        var lines = TextTable.lines(rows)
        lines.append("")
        if let upload = report.configuration.upload {
            lines.append("Upload rows: medians of \(upload.rounds) rounds per system (order rotated). The gateway is `sharelog-bench http --write-api` "
                + "(the library calls of `sharelog http`, a thread per server core, writes answered off them, the write API's rate limit off, access log to /dev/null), "
                + "driven by Debian's wrk for \(upload.seconds) s per run: POST /v1/shares of text/vcard, keep-alive, every request under a new "
                + "Idempotency-Key, answered 201. The library (`ShareStore.create`, one share a call, a task per client) and SQLite "
                + "(one insert per commit, a thread and connection per client) each make \(upload.anchorShares) shares into a fresh durable "
                + "store; the cards are the 9:1 pool in turn for all three.")
        }
        return lines
    }
}
