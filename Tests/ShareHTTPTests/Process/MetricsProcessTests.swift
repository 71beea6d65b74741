import Foundation
import Testing
import TestSupport
import TestTraits

/// `--metrics` on real processes (docs/OPERATIONS.md "Metrics"): every
/// scrape parses with Prometheus's own Python parser, and its counters
/// move as requests, syncs and sweeps happen.
@Suite(.hangDeadline, .ownThread) struct MetricsProcessTests {
    /// 2026-12-01T10:00:30Z in Unix seconds, counted by hand: from
    /// 1970-01-01 to 2026-12-01, 56 years of 365 days, 14 leap days and
    /// 334 days of 2026 (20,788 days); then ten hours and 30 seconds.
    static let afterExpirySeconds = Double((56 * 365 + 14 + 334) * 86_400 + 10 * 3600 + 30)

    @Test func theGatewaysMetricsParseAndCountItsAnswersByRouteAndStatus() throws {
        let fixture = try ProcessStore()
        let id = try fixture.share(ProcessCards.plain)
        let gateway = try fixture.gateway(ProcessApps.arguments + ["--metrics", "tcp:127.0.0.1:0"])
        defer { _ = try? gateway.stop() }
        let metrics = try #require(PrometheusScrape.address(in: gateway.lines))

        let before = try PrometheusScrape(metrics)
        #expect(before.contentType == "text/plain; version=0.0.4; charset=utf-8")
        #expect(before.types["sharelog_http_requests"] == "counter")
        #expect(before.types["sharelog_http_request_duration_seconds"] == "histogram")
        #expect(before.types["sharelog_shares"] == "gauge")
        #expect(before.value("sharelog_shares", ["state": "live"]) == 1)
        #expect(before.value("sharelog_http_requests_total", ["route": "share", "code": "200"]) == 0)

        let unknown = "6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f"
        let answers = try CurlClient.fetchAll(
            [1, 2, 3].map { _ in "\(gateway.baseURL)/appclip?id=\(id)" } + ["\(gateway.baseURL)/appclip?id=\(unknown)", "\(gateway.baseURL)/robots.txt"])
        #expect(answers.map(\.status) == [200, 200, 200, 404, 404])

        let after = try PrometheusScrape(metrics)
        #expect(after.value("sharelog_http_requests_total", ["route": "share", "code": "200"]) == 3)
        #expect(after.value("sharelog_http_requests_total", ["route": "share", "code": "404"]) == 1)
        #expect(after.value("sharelog_http_requests_total", ["route": "other", "code": "404"]) == 1)
        #expect(after.value("sharelog_http_request_duration_seconds_count", ["route": "share"]) == 4)
        #expect(after.value("sharelog_http_request_duration_seconds_bucket", ["route": "share", "le": "+Inf"]) == 4)

        #expect(try PrometheusScrape.status(of: "/healthz", at: metrics) == (200, "ok\n"))
        #expect(try PrometheusScrape.status(of: "/readyz", at: metrics) == (200, "ready\n"))
        #expect(try PrometheusScrape.status(of: "/metrics", at: metrics, method: "POST").status == 405)
        #expect(try PrometheusScrape.status(of: "/nothing", at: metrics).status == 404)
        // Scrapes are not access-logged: only the five card requests are.
        try gateway.waitForAccessLines(5)
        gateway.pump()
        #expect(gateway.accessLines.count == 5)
    }

    /// A server's scrape counts a finished sync session and its events,
    /// and its maintenance: the share that ends while it runs is expired
    /// at the pass after the clock passes its end.
    @Test func aServersMetricsCountSyncSessionsAndMaintenance() throws {
        let directory = TemporaryDirectory("metrics")
        let cli = try SharelogCLI(store: directory.appending("store"), now: "2026-12-01T09:00:00Z", nowFile: directory.appending("now"))
        let card = directory.appending("card.vcf")
        try Data(ProcessCards.plain).write(to: URL(fileURLWithPath: card))
        _ = try cli.run("init").checked("sharelog init")
        _ = try cli.run("share", "create", card, "--ttl", "1h").checked("sharelog share create")
        let socket = directory.appending("s.sock")
        let server = try WatchedProcess(
            cli, ["serve", "--listen", "unix:\(socket)", "--metrics", "tcp:127.0.0.1:0", "--maintenance-every", "1"],
            what: "sharelog serve --metrics", readiness: "says where it serves", timeout: .seconds(30)) { $0.hasPrefix("sharelog: serving ") }
        defer { _ = try? server.stop(timeout: .seconds(20)) }
        let metrics = try #require(PrometheusScrape.address(in: server.lines))

        let before = try PrometheusScrape(metrics)
        #expect(before.value("sharelog_sync_sessions_total", ["role": "main", "outcome": "ok"]) == 0)
        #expect(before.value("sharelog_sync_events_total", ["direction": "sent"]) == 0)
        #expect(before.value("sharelog_shares", ["state": "live"]) == 1)
        #expect(before.value("sharelog_maintenance_items_total", ["item": "expired"]) == 0)
        #expect(try PrometheusScrape.status(of: "/readyz", at: metrics) == (200, "ready\n"))

        let puller = SharelogCLI(store: directory.appending("puller"), now: "2026-12-01T09:00:00Z")
        _ = try puller.run("sync", "--connect", "unix:\(socket)", "--pull").checked("sharelog sync --pull")
        try Deadline.block(until: "the server counts the ended session") {
            try PrometheusScrape(metrics).value("sharelog_sync_sessions_total", ["role": "main", "outcome": "ok"]) == 1
        }
        let synced = try PrometheusScrape(metrics)
        #expect(synced.value("sharelog_sync_events_total", ["direction": "sent"]) == 1)
        #expect(synced.value("sharelog_sync_session_duration_seconds_count", ["role": "main"]) == 1)
        #expect(synced.value("sharelog_sync_sessions_active", ["role": "main"]) == 0)

        try cli.setTime("2026-12-01T10:00:30Z")
        try Deadline.block(until: "a pass after the share's end expires it, and the scrape says so") {
            try PrometheusScrape(metrics).value("sharelog_maintenance_items_total", ["item": "expired"]) == 1
        }
        let swept = try PrometheusScrape(metrics)
        #expect(swept.value("sharelog_shares", ["state": "expired"]) == 1)
        #expect(swept.value("sharelog_shares", ["state": "live"]) == 0)
        #expect(swept.value("sharelog_maintenance_items_total", ["item": "redacted"]) == 1)
        #expect(swept.value("sharelog_maintenance_last_pass_timestamp_seconds", ["result": "ran"]) == Self.afterExpirySeconds)
        #expect(swept.value("sharelog_cards_awaiting_redaction") == 0)
        #expect((swept.value("sharelog_compaction_duration_seconds_count") ?? 0) >= 1)
    }

    /// `--metrics` takes only a listening address; a bad one is refused
    /// before anything starts, with the usage or value exit codes.
    @Test func aBadMetricsAddressIsRefusedBeforeAnythingStarts() throws {
        let fixture = try ProcessStore()
        let cli = fixture.cli(at: ProcessClock.serving)
        let stdio = try cli.run("serve", "--stdio", "--metrics", "tcp:127.0.0.1:0")
        #expect(stdio.status == 2)
        #expect(stdio.error.contains("--metrics is for a listening server"))
        let exec = try cli.run("http", "--metrics", "exec:true")
        #expect(exec.status == 5)
        #expect(exec.error.contains("--metrics: metrics are served on tcp:HOST:PORT or unix:PATH"))
    }
}
