import ShareHTTP
import Testing
import TestTraits

/// The URLs a `GatewayClient` fetches: a link on another base, and an
/// operator's probe path on a base.
@Suite(.hangDeadline) struct GatewayURLTests {
    static let link = "https://cards.example.com/appclip?id=6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f"

    @Test func aLinkOnAnotherBaseKeepsItsPathAndQueryAndTheBasesPath() throws {
        #expect(try GatewayURL(base: "http://127.0.0.1:8080/", link: Self.link).text
            == "http://127.0.0.1:8080/appclip?id=6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f")
        #expect(try GatewayURL(base: "https://staging.example.com/cards//", link: Self.link).text
            == "https://staging.example.com/cards/appclip?id=6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f")
    }

    @Test func aProbePathGoesOnTheBaseWithoutItsTrailingSlash() throws {
        #expect(try GatewayURL(base: "http://127.0.0.1:9464/", path: "/metrics").text == "http://127.0.0.1:9464/metrics")
        #expect(try GatewayURL(base: "http://[::1]:9464", path: "/healthz").text == "http://[::1]:9464/healthz")
    }

    @Test func aBadBaseOrPathIsRefused() {
        for (base, path) in [("http://127.0.0.1:9464", "metrics"), ("http://127.0.0.1:9464", "/a b"), ("ftp://127.0.0.1", "/metrics"),
                             ("http://127.0.0.1:9464/?x=1", "/metrics")] {
            #expect(throws: GatewayClientError.self, "\(base) \(path)") { try GatewayURL(base: base, path: path) }
        }
    }
}
