import ShareHTTP
import ShareMetrics
import SharePrimitives
import Testing
import TestTraits

/// `/metrics`, `/healthz` and `/readyz` as an operator's probes see them
/// (docs/OPERATIONS.md "Metrics").
@Suite(.hangDeadline) struct MetricsEndpointTests {
    static func endpoint(healthy: Locked<Bool> = Locked(true)) -> (MetricsEndpoint, MetricsRegistry) {
        let registry = MetricsRegistry()
        registry.gauge("demo_up", "Up.").set(1)
        return (MetricsEndpoint(registry: registry, health: { healthy.withLock { $0 } }), registry)
    }

    @Test func metricsAnswerTheExpositionUncached() {
        let (endpoint, _) = Self.endpoint()
        let answer = endpoint.respond(to: .get("/metrics?name[]=demo_up"))
        #expect(answer.status.code == 200)
        #expect(answer.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
        #expect(answer.header("Cache-Control") == "no-store")
        #expect(answer.text == "# HELP demo_up Up.\n# TYPE demo_up gauge\ndemo_up 1\n")
        #expect(endpoint.respond(to: GatewayRequest.get("/metrics").with(method: "HEAD")).status.code == 200)
    }

    @Test func healthFollowsWhetherTheStoreCanBeReadAtEachRequest() {
        let healthy = Locked(true)
        let (endpoint, _) = Self.endpoint(healthy: healthy)
        #expect(endpoint.respond(to: .get("/healthz")).status.code == 200)
        healthy.withLock { $0 = false }
        let sick = endpoint.respond(to: .get("/healthz"))
        #expect(sick.status.code == 503)
        #expect(sick.text == "the store cannot be read\n")
        healthy.withLock { $0 = true }
        #expect(endpoint.respond(to: .get("/healthz")).text == "ok\n")
    }

    @Test func readinessIsServiceUnavailableUntilReadyAndOnceStopping() {
        let (endpoint, _) = Self.endpoint()
        #expect(endpoint.respond(to: .get("/readyz")).status.code == 503)
        #expect(endpoint.respond(to: .get("/readyz")).text == "starting\n")
        endpoint.set(.ready)
        #expect(endpoint.respond(to: .get("/readyz")).status.code == 200)
        endpoint.set(.stopping)
        #expect(endpoint.respond(to: .get("/readyz")).status.code == 503)
        #expect(endpoint.respond(to: .get("/readyz")).text == "stopping\n")
    }

    @Test func otherPathsAndMethodsAreRefusedAndNothingIsLogged() {
        let (endpoint, _) = Self.endpoint()
        #expect(endpoint.respond(to: .get("/")).status.code == 404)
        #expect(endpoint.respond(to: .get("/metrics/extra")).status.code == 404)
        let post = endpoint.respond(to: GatewayRequest.get("/metrics").with(method: "POST"))
        #expect(post.status.code == 405)
        #expect(post.header("Allow") == "GET, HEAD")
        #expect(endpoint.answered(.get("/metrics"), endpoint.respond(to: .get("/metrics")), microseconds: 5) == nil)
    }
}
