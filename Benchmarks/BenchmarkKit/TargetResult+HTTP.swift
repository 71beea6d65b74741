/// Issue 26's goals for the HTTP gateway, evaluated on the medians of a run.
extension TargetResult {
    /// ≥ 1x nginx at the most keep-alive connections (plain), ≥ 0.8x nginx
    /// over TLS (keep-alive, the most connections), ≥ 1x Redis `GET` at the
    /// most connections (plain keep-alive against persistent connections),
    /// the gateway's p99 ≤ 4x its p50 in every row, and its RssAnon flat
    /// under idle keep-alive connections (growth ≤ 16 MiB for 1,000, so
    /// at most 16 KiB each, half the 32 KiB a connection may hold). A goal
    /// whose figures were not measured is absent.
    static func httpTargets(_ measurements: Measurements, _ configuration: BenchConfiguration) -> [TargetResult] {
        guard let http = configuration.http, let most = http.connections.max() else { return [] }
        var results: [TargetResult] = []
        func median(_ id: String, _ system: String) -> Double? { measurements.figure(id)?.results[system]?.median }
        func ratio(_ id: String, _ other: String) -> Double? {
            guard let mine = median(id, "ShareLog"), let theirs = median(id, other), theirs > 0 else { return nil }
            return mine / theirs
        }
        func cpu(_ id: String) -> String {
            let values = ["ShareLog", "nginx", "Redis"].compactMap { system in
                median(id + ".cpu", system).map { "\(system == "ShareLog" ? "gateway" : system) \(Formatting.value($0))" }
            }
            return "server CPU ms per 1,000 requests: " + values.joined(separator: ", ")
        }

        let keepAlive = "http.plain.keepAlive.c\(most)", tls = "http.tls.keepAlive.c\(most)"
        if let value = ratio(keepAlive, "nginx") {
            results.append(TargetResult(
                id: "http.vsNginx", statement: "gateway ≥ 1x nginx's requests/s at \(most) keep-alive connections",
                value: value, threshold: 1, atLeast: true, detail: cpu(keepAlive)))
        }
        if let value = ratio(tls, "nginx") {
            let close = ratio("http.tls.close.c\(most)", "nginx")
            results.append(TargetResult(
                id: "http.tls.vsNginx", statement: "gateway ≥ 0.8x nginx's requests/s over TLS (\(most) keep-alive connections)",
                value: value, threshold: 0.8, atLeast: true,
                detail: "with Connection: close \(Formatting.ratio(close)); " + cpu(tls)))
        }
        if let value = ratio(keepAlive, "Redis") {
            results.append(TargetResult(
                id: "http.vsRedis", statement: "gateway ≥ 1x Redis GET at \(most) connections",
                value: value, threshold: 1, atLeast: true,
                detail: "plain HTTP keep-alive vs GET on persistent connections (Unix socket); " + cpu(keepAlive)))
        }
        let tails = measurements.figures.filter { $0.id.hasPrefix("http.") && $0.id.split(separator: ".").count == 4 }
            .compactMap { figure -> (String, Double)? in
                guard let p50 = median(figure.id + ".p50", "ShareLog"), let p99 = median(figure.id + ".p99", "ShareLog"), p50 > 0 else { return nil }
                return (String(figure.id.dropFirst("http.".count)), p99 / p50)
            }
        if let worst = tails.max(by: { $0.1 < $1.1 }) {
            let over = tails.filter { $0.1 > 4 }.map { "\($0.0) \(Formatting.ratio($0.1))" }
            results.append(TargetResult(
                id: "http.p99", statement: "gateway latency p99 ≤ 4x its p50 in every row (wrk, closed loop: under-reports the tail)",
                value: worst.1, threshold: 4, atLeast: false,
                detail: "worst \(worst.0); " + (over.isEmpty ? "no row over 4x" : "over 4x: " + over.joined(separator: ", "))))
        }
        if let growth = median("http.idle.rssAnonGrowth", "ShareLog") {
            let idle = median("http.idle.rssAnonIdleGrowth", "ShareLog")
            let nginx = median("http.idle.rssAnonGrowth", "nginx")
            results.append(TargetResult(
                id: "http.idle.rssAnonFlat",
                statement: "gateway RssAnon flat under \(Formatting.grouped(http.idleConnections)) idle keep-alive connections (growth ≤ 16 MiB)",
                value: growth, threshold: 16, atLeast: false,
                detail: "of which while idle \(idle.map(Formatting.value) ?? "—") MiB; nginx grew \(nginx.map(Formatting.value) ?? "—") MiB"))
        }
        return results
    }
}
