import Foundation
import ShareLog

/// The HTTP workload (issue 26): a gateway (`sharelog-bench http`, the
/// library calls of `sharelog http`) holding `http.shares` shares of the
/// 9:1 mix, driven by Debian's `wrk` with ids from a list (9 live : 1
/// unknown) at each of `http.connections`, with keep-alive and with
/// `Connection: close`, over plain HTTP and TLS. In the same rounds, with
/// the order rotated: nginx serving the same card bytes as files by the
/// same URLs (`NginxServer`), and, for the plain rows, Redis `GET` of the
/// same cards from the existing harness with as many client threads (on
/// persistent connections for keep-alive, a connection per `GET` for
/// close). Servers run on the server cores, clients on the others
/// (`CPUPinning`).
///
/// Per row and system: requests/s, `wrk`'s p50 and p99 (closed loop: see
/// `WrkRun`), server CPU per 1,000 requests (utime + stime of the server's
/// processes from /proc, before and after), the unknown ids answered 404,
/// socket errors and other statuses, and how busy the server's and the
/// client's cores were. Then RssAnon of the gateway and of nginx under
/// `http.idleConnections` idle keep-alive connections.
public struct HTTPWorkload: Workload {
    public let name = "http"

    public init() {}

    /// One row of the table.
    struct Row {
        let tls: Bool
        let close: Bool
        let connections: Int

        var id: String { "http.\(tls ? "tls" : "plain").\(close ? "close" : "keepAlive").c\(connections)" }
        var title: String {
            "\(tls ? "HTTPS (TLS)" : "HTTP"), \(close ? "Connection: close" : "keep-alive"), \(connections) connection\(connections == 1 ? "" : "s")"
        }
    }

    /// The systems of a row, by the names their figures are recorded under.
    enum System: String, CaseIterable {
        case gateway = "ShareLog"
        case nginx
        case redis = "Redis"
    }

    public func run(in context: BenchContext, recording measurements: inout Measurements) async throws {
        guard let http = context.configuration.http else { return }
        let pinning = CPUPinning.detect()
        let deck = CardDeck(mixed: true, pool: context.configuration.cardPool)
        let storePath = context.storePath("http", .shareLog)
        let filesPath = context.storePath("http-files", .shareLog)
        let redisPath = context.storePath("http", .redis)
        defer { for path in [storePath, filesPath, redisPath] { context.remove(path) } }

        context.progress("http: filling the gateway's store with \(Formatting.grouped(http.shares)) shares; \(pinning.description)")
        let names = try SyncBench(context: context).fillMain(at: storePath, deck: deck, count: http.shares)
        context.progress("http: writing nginx's card files and the id list")
        let files = try HTTPBenchFiles(directory: filesPath, names: names, deck: deck)
        context.progress("http: filling Redis")
        let (redisStore, redisNames) = try await context.filledRedis(at: redisPath, deck: deck, parts: [.live(http.shares)])
        defer { redisStore.close() }
        let redis = try HTTPRedisAnchor(store: redisStore, directory: redisPath, names: files.redisNames(redisNames), picks: files.picks, pinning: pinning)
        context.progress("http: starting the gateways and nginx")
        let stage = try HTTPStage(context: context, store: storePath, files: files, pinning: pinning)
        defer { stage.stop() }
        try stage.checkSameAnswers(names: names, deck: deck)
        measurements.record(
            "http.nginxFileCache", title: "nginx's open_file_cache entries, for \(Formatting.grouped(files.picks.count)) ids",
            unit: "entries", higherIsBetter: true, comparable: false, systemName: System.nginx.rawValue, value: Double(stage.nginx.cacheEntries))

        let load = { (server: HTTPStage.Server, row: Row, seconds: Int) in
            WrkRun.Load(url: stage.url(server, tls: row.tls), connections: row.connections, threads: pinning.clientThreads,
                        seconds: seconds, close: row.close)
        }
        let most = http.connections.max() ?? 1
        for server in [HTTPStage.Server.gateway, .nginx] {
            for tls in [false, true] {
                context.progress("http: warming up \(server) (\(tls ? "TLS" : "plain")) for \(http.warmUpSeconds) s")
                _ = try WrkRun.run(load(server, Row(tls: tls, close: false, connections: most), http.warmUpSeconds),
                                   script: files.script, list: files.idList, command: { pinning.command($0, on: pinning.client) })
            }
        }

        let rows = [false, true].flatMap { tls in
            [false, true].flatMap { close in http.connections.map { Row(tls: tls, close: close, connections: $0) } }
        }
        for round in 0..<http.rounds {
            for row in rows {
                let systems: [System] = row.tls ? [.gateway, .nginx] : System.allCases
                let shift = round % systems.count
                for system in systems[shift...] + systems[..<shift] {
                    context.progress("http: round \(round + 1), \(row.title), \(system.rawValue)")
                    let coresBefore = CoreUsage()
                    let result: HTTPRowResult
                    switch system {
                    case .gateway, .nginx:
                        let server: HTTPStage.Server = system == .gateway ? .gateway : .nginx
                        let cpuBefore = ProcessTree.cpuSeconds(stage.processes(server, tls: row.tls))
                        let run = try WrkRun.run(load(server, row, http.seconds), script: files.script, list: files.idList,
                                                 command: { pinning.command($0, on: pinning.client) })
                        let cpu = ProcessTree.cpuSeconds(stage.processes(server, tls: row.tls)) - cpuBefore
                        guard run.ok > 0 else { throw BenchError.mismatch("\(system.rawValue) served no card in \(row.title)") }
                        result = HTTPRowResult(run, cpuSeconds: cpu)
                    case .redis:
                        result = try redis.fetch(threads: row.connections, connectionPerFetch: row.close, seconds: http.seconds)
                    }
                    let coresAfter = CoreUsage()
                    result.record(into: &measurements, row: row, system: system,
                                  serverBusy: coresAfter.busyPercent(since: coresBefore, cores: pinning.server),
                                  clientBusy: coresAfter.busyPercent(since: coresBefore, cores: pinning.client))
                }
            }
        }
        try measureIdle(http, stage: stage, names: names, deck: deck, into: &measurements, context: context)
    }

    /// RssAnon of the plain gateway and of nginx under idle keep-alive
    /// connections, each answered one small card first.
    private func measureIdle(
        _ http: HTTPBenchConfiguration, stage: HTTPStage, names: [RecordName], deck: CardDeck,
        into measurements: inout Measurements, context: BenchContext
    ) throws {
        guard let small = names.indices.first(where: { deck.card($0).count < 4096 }) else { return }
        for (system, server, port) in [(System.gateway, HTTPStage.Server.gateway, stage.gatewayPort), (.nginx, .nginx, stage.nginx.plainPort)] {
            context.progress("http: \(http.idleConnections) idle keep-alive connections to \(system.rawValue)")
            let memory = try IdleConnections.measure(
                port: port, path: "/appclip?id=\(names[small])", count: http.idleConnections, idle: .seconds(http.idleSeconds),
                processes: { stage.processes(server, tls: false) })
            let connections = Formatting.grouped(http.idleConnections)
            measurements.record("http.idle.rssAnonGrowth", title: "RssAnon growth under \(connections) idle keep-alive connections",
                                unit: "MiB", higherIsBetter: false, systemName: system.rawValue, value: memory.growthMiB)
            measurements.record("http.idle.rssAnonIdleGrowth", title: "  of which while they idled \(http.idleSeconds) s",
                                unit: "MiB", higherIsBetter: false, comparable: false, systemName: system.rawValue, value: memory.idleGrowthMiB)
            measurements.record("http.idle.perConnection", title: "  per connection", unit: "KiB", higherIsBetter: false,
                                systemName: system.rawValue, value: Double(memory.idleKiB - memory.beforeKiB) / Double(http.idleConnections))
            measurements.record("http.idle.rssAnonBefore", title: "  RssAnon before they opened", unit: "MiB", higherIsBetter: false,
                                comparable: false, systemName: system.rawValue, value: Double(memory.beforeKiB) / 1024)
            measurements.record("http.idle.stillOpen", title: "  connections still open after the idle time", unit: "count",
                                higherIsBetter: true, comparable: false, systemName: system.rawValue, value: Double(memory.stillOpen))
        }
    }
}
