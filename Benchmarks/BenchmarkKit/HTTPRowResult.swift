/// What one system did in one row of the HTTP workload, as recorded.
struct HTTPRowResult {
    let requestsPerSecond: Double
    let requests: Int
    /// Latency percentiles, ms.
    let p50: Double
    let p99: Double
    /// Answers saying an id is unknown: 404, or Redis's nil.
    let notFound: Int
    /// Socket errors and answers other than 200 and 404.
    let errors: Int
    /// CPU seconds of the server's processes during the run; nil when
    /// they could not be read.
    let cpuSeconds: Double?

    init(requestsPerSecond: Double, requests: Int, p50: Double, p99: Double, notFound: Int, errors: Int, cpuSeconds: Double?) {
        self.requestsPerSecond = requestsPerSecond
        self.requests = requests
        self.p50 = p50
        self.p99 = p99
        self.notFound = notFound
        self.errors = errors
        self.cpuSeconds = cpuSeconds
    }

    init(_ run: WrkRun, cpuSeconds: Double) {
        self.init(requestsPerSecond: run.requestsPerSecond, requests: run.requests, p50: run.p50, p99: run.p99,
                  notFound: run.notFound, errors: run.socketErrors + run.otherStatus, cpuSeconds: cpuSeconds)
    }

    /// Records the row's figures for `system`: requests/s, p50, p99, CPU
    /// per 1,000 requests, 404s (% of answers), errors, and how busy the
    /// server's and the client's cores were (nil when not pinned).
    func record(
        into measurements: inout Measurements, row: HTTPWorkload.Row, system: HTTPWorkload.System,
        serverBusy: Double?, clientBusy: Double?
    ) {
        let name = system.rawValue
        measurements.record(row.id, title: row.title, unit: "requests/s", higherIsBetter: true, systemName: name, value: requestsPerSecond)
        measurements.record(row.id + ".p50", title: "  latency p50 (wrk, closed loop)", unit: "ms", higherIsBetter: false, systemName: name, value: p50)
        measurements.record(row.id + ".p99", title: "  latency p99 (wrk, closed loop)", unit: "ms", higherIsBetter: false, systemName: name, value: p99)
        if let cpuSeconds, requests > 0 {
            measurements.record(row.id + ".cpu", title: "  server CPU per 1,000 requests", unit: "ms", higherIsBetter: false,
                                systemName: name, value: cpuSeconds * 1000 / Double(requests) * 1000)
        }
        measurements.record(row.id + ".notFound", title: "  non-2xx answers for the unknown ids (Redis: nil), ~10%", unit: "%",
                            higherIsBetter: true, comparable: false, systemName: name, value: requests > 0 ? 100 * Double(notFound) / Double(requests) : 0)
        measurements.record(row.id + ".errors", title: "  socket errors and other non-2xx answers", unit: "count", higherIsBetter: false,
                            comparable: false, systemName: name, value: Double(errors))
        if let serverBusy {
            measurements.record(row.id + ".serverCores", title: "  server core(s) busy", unit: "%", higherIsBetter: true, comparable: false,
                                systemName: name, value: serverBusy)
        }
        if let clientBusy {
            measurements.record(row.id + ".clientCores", title: "  client core(s) busy", unit: "%", higherIsBetter: true, comparable: false,
                                systemName: name, value: clientBusy)
        }
    }
}
