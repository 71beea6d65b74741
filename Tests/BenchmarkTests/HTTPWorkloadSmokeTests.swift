import Foundation
import TestSupport
import Testing
@testable import BenchmarkKit

/// Keeps the HTTP workload (issue 26) from rotting: at tiny sizes (200
/// shares, 1 s wrk runs), every row has every system with a throughput, the
/// goals are evaluated, and nginx serves the same bytes as the gateway.
/// Timings are never asserted; they mean nothing at these sizes.
@Suite(.timeLimit(.minutes(8))) struct HTTPWorkloadSmokeTests {
    private static func context(_ directory: TemporaryDirectory) -> BenchContext {
        var configuration = BenchConfiguration.smoke
        configuration.http = .smoke
        return BenchContext(
            configuration: configuration, workDirectory: directory.appending("work"), executables: .besideThisProcess(), log: { _ in })
    }

    /// nginx and the gateway, as the workload starts them, answer the same
    /// ids with the same bytes (the card's), over plain HTTP and TLS, read
    /// by curl; and an unknown id with 404.
    @Test func nginxServesTheGatewaysBytes() async throws {
        let directory = TemporaryDirectory()
        let context = Self.context(directory)
        let shares = try #require(context.configuration.http).shares
        let deck = CardDeck(mixed: true, pool: context.configuration.cardPool)
        let names = try SyncBench(context: context).fillMain(at: directory.appending("store"), deck: deck, count: shares)
        let files = try HTTPBenchFiles(directory: directory.appending("files"), names: names, deck: deck)
        let stage = try HTTPStage(context: context, store: directory.appending("store"), files: files, pinning: .detect())
        let servers = stage.processes(.gateway, tls: false) + stage.processes(.gateway, tls: true) + stage.processes(.nginx, tls: false)
        #expect(servers.count >= 4, "two gateways, nginx's master and at least one worker: \(servers)")
        do {
            defer { stage.stop() }
            // Card 0 carries a photo (about 62 KB), card 1 does not (about 1 KB).
            for index in [0, 1] {
                for tls in [false, true] {
                    let path = "/appclip?id=\(names[index])"
                    let gateway = try curl(stage.url(.gateway, tls: tls) + path)
                    let nginx = try curl(stage.url(.nginx, tls: tls) + path)
                    #expect(gateway.status == 200 && nginx.status == 200)
                    #expect(gateway.body == nginx.body, "share \(index), TLS \(tls): \(gateway.body.count) vs \(nginx.body.count) bytes")
                    #expect(gateway.body == deck.card(index))
                }
            }
            let unknown = try #require(files.picks.lazy.compactMap { if case .unknown(let bytes) = $0 { bytes } else { nil } }.first)
            for server in [HTTPStage.Server.gateway, .nginx] {
                #expect(try curl(stage.url(server, tls: false) + "/appclip?id=\(HTTPBenchFiles.name(unknown))").status == 404)
            }
            #expect(files.unknownCount == shares / 9)
        }
        let left = servers.filter { kill($0, 0) == 0 }.map { pid in
            "\(pid) " + String(decoding: FileManager.default.contents(atPath: "/proc/\(pid)/stat") ?? Data(), as: UTF8.self)
        }
        #expect(left.isEmpty, "every server stopped: \(left)")
    }

    @Test func everyRowHasEverySystemAndTheGoals() async throws {
        let directory = TemporaryDirectory()
        let context = Self.context(directory)
        let http = try #require(context.configuration.http)
        let report = try await BenchmarkRunner(context: context, only: ["http"]).run(on: .current(swift: "smoke test"))

        var expected: Set<String> = []
        for tls in ["plain", "tls"] {
            for mode in ["keepAlive", "close"] {
                for connections in http.connections {
                    let row = "http.\(tls).\(mode).c\(connections)"
                    expected.formUnion(["", ".p50", ".p99", ".cpu", ".notFound", ".errors"].map { row + $0 })
                    if !CPUPinning.detect().server.isEmpty { expected.formUnion([row + ".serverCores", row + ".clientCores"]) }
                }
            }
        }
        expected.insert("http.nginxFileCache")
        expected.formUnion(["rssAnonGrowth", "rssAnonIdleGrowth", "perConnection", "rssAnonBefore", "stillOpen"].map { "http.idle." + $0 })
        #expect(Set(report.measurements.figures.map(\.id)) == expected)

        for figure in report.measurements.figures where figure.id.split(separator: ".").count == 4 && figure.id.hasPrefix("http.") {
            // A row: the gateway and nginx, and Redis for plain HTTP.
            let systems: Set = figure.id.hasPrefix("http.tls.") ? ["ShareLog", "nginx"] : ["ShareLog", "nginx", "Redis"]
            #expect(Set(figure.results.keys) == systems, "\(figure.id)")
            for (system, sample) in figure.results {
                #expect(!sample.values.isEmpty && sample.values.allSatisfy { $0.isFinite && $0 > 0 }, "\(figure.id), \(system): \(sample.values)")
            }
            // Every answer was a card or a 404: no socket errors, no other status.
            for (system, sample) in report.measurements.figure(figure.id + ".errors")?.results ?? [:] {
                #expect(sample.values.allSatisfy { $0 == 0 }, "\(figure.id), \(system): \(sample.values) errors")
            }
        }
        #expect(report.measurements.figure("http.idle.stillOpen")?.results.mapValues(\.values)
            == ["ShareLog": [Double(http.idleConnections)], "nginx": [Double(http.idleConnections)]])
        #expect(Set(report.targets.map(\.id)) == ["http.vsNginx", "http.tls.vsNginx", "http.vsRedis", "http.p99", "http.idle.rssAnonFlat"])

        let table = ReportTable.render(report)
        #expect(table.contains("HTTP workload (issue 26)"))
        #expect(table.contains("HTTPS (TLS), Connection: close, 50 connections"))
        #expect(report.machine.httpSoftware?.contains("nginx/") == true, "\(report.machine.httpSoftware ?? "nil")")

        #expect(RedisProcesses.running(under: directory.path) == [], "every redis-server was stopped")
        #expect(ProcessList.naming(directory.path) == [], "every gateway and nginx was stopped")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.appending("work")).isEmpty, "every store was removed")
    }

    /// `GET url` with `Accept: text/vcard` by curl: the status and the body.
    private func curl(_ url: String) throws -> (status: Int, body: [UInt8]) {
        let outcome = try Subprocess.run(
            "/usr/bin/curl", ["-sS", "-k", "--max-time", "10", "-H", "Accept: text/vcard", "-D", "/dev/stderr", url],
            environment: ProcessInfo.processInfo.environment, timeout: .seconds(30))
        try #require(outcome.status == 0, "curl \(url): \(String(decoding: outcome.error, as: UTF8.self))")
        let statusLine = String(decoding: outcome.error, as: UTF8.self).split(separator: "\r\n").first ?? ""
        return (Int(statusLine.split(separator: " ").dropFirst().first ?? "") ?? 0, outcome.output)
    }
}
