import Foundation
import TestSupport
import Testing
import TestTraits

/// `sharelog relay --metrics` (docs/OPERATIONS.md "Metrics"): ready once it
/// has caught up with the stream, and its counters move with what it
/// consumes and publishes, as Prometheus's own parser reads them.
@Suite(.serialized, .hangDeadline, .ownThread)
struct RelayMetricsTests {
    @Test func aRelaysMetricsCountWhatItConsumedAndPublished() throws {
        let fixture = try RelayFixture("relaymetrics")
        let a = try fixture.replica("a")
        let b = try fixture.replica("b")
        _ = try b.create(2)
        let relayB = try b.startRelay(fixture.cluster, extra: ["--replicas", "1"])
        defer { _ = try? relayB.stop() }
        try fixture.observer.waitUntilEveryServerHolds(2, timeout: .seconds(60))

        let relayA = try a.startRelay(fixture.cluster, extra: ["--replicas", "1", "--metrics", "tcp:127.0.0.1:0"])
        defer { _ = try? relayA.stop() }
        let metrics = try #require(PrometheusScrape.address(in: relayA.lines))
        #expect(try PrometheusScrape.status(of: "/readyz", at: metrics) == (200, "ready\n"))
        let caughtUp = try PrometheusScrape(metrics)
        #expect(caughtUp.types["sharelog_relay_published"] == "counter")
        #expect(caughtUp.value("sharelog_relay_consumed_total", ["new": "true"]) == 2)
        #expect(caughtUp.value("sharelog_relay_published_total", ["duplicate": "false"]) == 0)
        #expect(caughtUp.value("sharelog_shares", ["state": "live"]) == 2)

        _ = try a.create(3)
        try Deadline.block(until: "a's relay publishes its 3 shares, and its scrape says so") {
            try PrometheusScrape(metrics).value("sharelog_relay_published_total", ["duplicate": "false"]) == 3
        }
        #expect(try PrometheusScrape(metrics).value("sharelog_shares", ["state": "live"]) == 5)
    }
}
