import Foundation
import ShareMetrics
import Testing
import TestSupport
import TestTraits

/// The exposition as Prometheus's format defines it
/// (docs/OPERATIONS.md "Metrics"), written out by hand here.
@Suite(.hangDeadline) struct TextExpositionTests {
    @Test func familiesRenderInTheOrderMadeWithEscapesAndCumulativeBuckets() {
        let registry = MetricsRegistry()
        let requests = registry.counter("demo_requests_total", "Requests \\ split\nin two.", labels: ["path"])
        requests.increment("/a\"b\\c\nd")
        requests.increment(by: 2, "/a\"b\\c\nd")
        requests.increment("/")
        let temperature = registry.gauge("demo_temperature_celsius", "A temperature.")
        temperature.set(-1.5)
        let latency = registry.histogram("demo_latency_seconds", "Latencies.", buckets: [0.125, 1])
        for value in [0.0625, 0.5, 7] { latency.observe(value) }

        #expect(registry.exposition() == """
            # HELP demo_requests_total Requests \\\\ split\\nin two.
            # TYPE demo_requests_total counter
            demo_requests_total{path="/"} 1
            demo_requests_total{path="/a\\"b\\\\c\\nd"} 3
            # HELP demo_temperature_celsius A temperature.
            # TYPE demo_temperature_celsius gauge
            demo_temperature_celsius -1.5
            # HELP demo_latency_seconds Latencies.
            # TYPE demo_latency_seconds histogram
            demo_latency_seconds_bucket{le="0.125"} 1
            demo_latency_seconds_bucket{le="1"} 2
            demo_latency_seconds_bucket{le="+Inf"} 3
            demo_latency_seconds_sum 7.5625
            demo_latency_seconds_count 3

            """)
    }

    @Test func aCounterFedARunningTotalNeverGoesDown() {
        let registry = MetricsRegistry()
        let published = registry.counter("demo_published_total", "Published.")
        published.record(total: 5)
        published.record(total: 3)
        #expect(published.value() == 5)
        published.record(total: 8)
        #expect(registry.exposition().hasSuffix("demo_published_total 8\n"))
    }

    @Test func aGaugeReplacedWholeStopsExposingWhatIsGone() {
        let registry = MetricsRegistry()
        let position = registry.gauge("demo_peer_position", "Positions.", labels: ["peer"])
        position.replaceAll([["a"]: 1, ["b"]: 2])
        position.replaceAll([["b"]: 3])
        #expect(registry.exposition().hasSuffix("# TYPE demo_peer_position gauge\ndemo_peer_position{peer=\"b\"} 3\n"))
    }

    @Test func updatesRunBeforeEachScrape() {
        let registry = MetricsRegistry()
        let scrapes = registry.counter("demo_scrapes_total", "Scrapes.")
        registry.beforeEachScrape { scrapes.increment() }
        _ = registry.exposition()
        #expect(registry.exposition().hasSuffix("demo_scrapes_total 2\n"))
    }

    /// Label values with every character the format escapes, and a CR LF,
    /// read back by Prometheus's Python parser as they were.
    @Test func prometheusOwnParserReadsBackEveryLabelValue() throws {
        let values = ["plain", "quote \" here", "back\\slash", "new\nline", "crlf\r\nend", "ünïcødé ✓", ""]
        let registry = MetricsRegistry()
        let family = registry.counter("demo_values_total", "Values.", labels: ["value"])
        for (index, value) in values.enumerated() { family.increment(by: Double(index), value) }
        let script = """
            import json, sys
            from prometheus_client.parser import text_string_to_metric_families
            families = list(text_string_to_metric_families(sys.stdin.read()))
            print(json.dumps({s.labels["value"]: s.value for f in families for s in f.samples}))
            """
        let run = try Subprocess.run(
            "/usr/bin/python3", ["-c", script], environment: ["PYTHONIOENCODING": "utf-8", "LANG": "C.UTF-8"],
            input: Array(registry.exposition().utf8), timeout: .seconds(30))
        #expect(run.status == 0, "\(String(decoding: run.error, as: UTF8.self))")
        let parsed = try JSONSerialization.jsonObject(with: Data(run.output)) as? [String: Double]
        #expect(parsed == Dictionary(uniqueKeysWithValues: values.enumerated().map { ($0.element, Double($0.offset)) }))
    }
}
