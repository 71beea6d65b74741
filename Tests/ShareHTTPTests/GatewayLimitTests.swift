import Dispatch
import Synchronization
import SampleCards
import ShareHTTP
import ShareLog
import Testing

/// Per-address limits: misses (400, 404, 410) far more strictly than hits;
/// a client out of misses is refused even its hits, while everyone else is
/// served; behind a trusted proxy, `X-Forwarded-For` names the client.
///
/// The defaults: 20 misses at once then one every 20 s; 100 requests at
/// once then one every 20 ms. The clock stands still unless a test moves it.
@Suite struct GatewayLimitTests {
    static let guesser = ClientAddress.ipv4(0xCB00_7107) // 203.0.113.7
    static let neighbour = ClientAddress.ipv4(0xCB00_7108) // 203.0.113.8
    static let proxy = ClientAddress.ipv4(0x0A00_0001) // 10.0.0.1

    enum Miss: String, CaseIterable, CustomTestStringConvertible {
        case unknownID, expired, revoked, damaged, unknownPath
        var testDescription: String { rawValue }
        func target(_ fixture: GatewayFixture) -> String {
            switch self {
            case .unknownID: link(GatewayFixture.unknown)
            case .expired: link(fixture.expired.recordName)
            case .revoked: link(fixture.revoked.recordName)
            case .damaged: "/appclip?id=guess"
            case .unknownPath: "/admin"
            }
        }
    }

    @Test(arguments: Miss.allCases)
    func afterTwentyMissesEvenAHitIsRefusedWhileOthersAreServed(miss: Miss) throws {
        let fixture = try GatewayFixture()
        let gateway = try fixture.gateway()
        for index in 0..<20 {
            let response = gateway.respond(to: .get(miss.target(fixture), from: Self.guesser))
            #expect([400, 404, 410].contains(response.status.code), "miss \(index)")
        }
        let refused = gateway.respond(to: .get(link(fixture.live.recordName), from: Self.guesser))
        #expect(refused.status.code == 429)
        #expect(refused.header("Retry-After") == "20")
        #expect(refused.header("Cache-Control") == "no-store")
        #expect(refused.text.contains("Try again in 20 seconds."))
        #expect(gateway.respond(to: .get(miss.target(fixture), from: Self.guesser)).status.code == 429)
        #expect(gateway.respond(to: .get(link(fixture.live.recordName), from: Self.neighbour)).status.code == 200)
    }

    @Test func nineteenMissesLeaveHitsAlone() throws {
        let fixture = try GatewayFixture()
        let gateway = try fixture.gateway()
        for _ in 0..<19 { _ = gateway.respond(to: .get(link(GatewayFixture.unknown), from: Self.guesser)) }
        #expect(gateway.respond(to: .get(link(fixture.live.recordName), from: Self.guesser)).status.code == 200)
        #expect(gateway.respond(to: .get(link(GatewayFixture.unknown), from: Self.guesser)).status.code == 404)
        #expect(gateway.respond(to: .get(link(fixture.live.recordName), from: Self.guesser)).status.code == 429)
    }

    /// One miss comes back every 20 s: then one more lookup, no more.
    @Test func aMissComesBackAfterTheRetryAfterSeconds() throws {
        let fixture = try GatewayFixture()
        let clock = SettableClock(GatewayFixture.now)
        let gateway = try fixture.gateway(clock: clock)
        for _ in 0..<20 { _ = gateway.respond(to: .get(link(GatewayFixture.unknown), from: Self.guesser)) }
        clock.advance(by: .seconds(19))
        let early = gateway.respond(to: .get(link(fixture.live.recordName), from: Self.guesser))
        #expect(early.status.code == 429)
        #expect(early.header("Retry-After") == "1")
        clock.advance(by: .seconds(1))
        #expect(gateway.respond(to: .get(link(GatewayFixture.unknown), from: Self.guesser)).status.code == 404)
        #expect(gateway.respond(to: .get(link(fixture.live.recordName), from: Self.guesser)).status.code == 429)
    }

    @Test func hitsAreLimitedFarMoreLoosely() throws {
        let fixture = try GatewayFixture()
        let gateway = try fixture.gateway()
        for index in 0..<100 {
            #expect(gateway.respond(to: .get(link(fixture.live.recordName), from: Self.guesser)).status.code == 200, "hit \(index)")
        }
        let refused = gateway.respond(to: .get(link(fixture.live.recordName), from: Self.guesser))
        #expect(refused.status.code == 429)
        #expect(refused.header("Retry-After") == "1")
        #expect(gateway.respond(to: .get(link(fixture.live.recordName), from: Self.neighbour)).status.code == 200)
    }

    @Test func addressesInOneIPv6SlashSixtyFourShareTheirLimits() throws {
        let fixture = try GatewayFixture()
        let gateway = try fixture.gateway()
        let prefix: UInt64 = 0x2001_0DB8_0000_0001
        for host in 0..<20 as Range<UInt64> {
            _ = gateway.respond(to: .get(link(GatewayFixture.unknown), from: .ipv6(high: prefix, low: host)))
        }
        let sameSubnet = gateway.respond(to: .get(link(fixture.live.recordName), from: .ipv6(high: prefix, low: 0xFFFF)))
        #expect(sameSubnet.status.code == 429)
        let nextSubnet = gateway.respond(to: .get(link(fixture.live.recordName), from: .ipv6(high: prefix + 1, low: 0)))
        #expect(nextSubnet.status.code == 200)
    }

    @Test func behindATrustedProxyTheForwardedClientIsLimited() throws {
        let fixture = try GatewayFixture()
        let gateway = try fixture.gateway { $0.trustedProxies = [Self.proxy, .ipv4(0x0A00_0002)] }
        for _ in 0..<20 {
            _ = gateway.respond(to: .get(link(GatewayFixture.unknown), forwardedFor: "203.0.113.7", from: Self.proxy))
        }
        let guesser = gateway.respond(to: .get(link(fixture.live.recordName), forwardedFor: "203.0.113.7", from: Self.proxy))
        #expect(guesser.status.code == 429)
        // Through a second trusted hop, the same client is the same client.
        let viaTwo = gateway.respond(to: .get(link(fixture.live.recordName), forwardedFor: "203.0.113.7, 10.0.0.2", from: Self.proxy))
        #expect(viaTwo.status.code == 429)
        // A client can put anything first; the proxy appends the address it saw.
        let spoofed = gateway.respond(to: .get(link(fixture.live.recordName), forwardedFor: "198.51.100.1, 203.0.113.7", from: Self.proxy))
        #expect(spoofed.status.code == 429)
        let other = gateway.respond(to: .get(link(fixture.live.recordName), forwardedFor: "203.0.113.8", from: Self.proxy))
        #expect(other.status.code == 200)
        #expect(gateway.respond(to: .get(link(fixture.live.recordName), from: Self.proxy)).status.code == 200)
    }

    @Test func fromAnUntrustedPeerForwardedForIsIgnored() throws {
        let fixture = try GatewayFixture()
        let gateway = try fixture.gateway { $0.trustedProxies = [Self.proxy] }
        for index in 0..<20 {
            _ = gateway.respond(to: .get(link(GatewayFixture.unknown), forwardedFor: "198.51.100.\(index)", from: Self.guesser))
        }
        let refused = gateway.respond(to: .get(link(fixture.live.recordName), forwardedFor: "198.51.100.99", from: Self.guesser))
        #expect(refused.status.code == 429)
    }

    /// An entry that is no address ends the walk: the proxy itself is limited.
    @Test func aGarbledForwardedForCountsAgainstTheProxy() throws {
        let fixture = try GatewayFixture()
        let gateway = try fixture.gateway { $0.trustedProxies = [Self.proxy] }
        for index in 0..<20 {
            _ = gateway.respond(to: .get(link(GatewayFixture.unknown), forwardedFor: "203.0.113.\(index), unknown", from: Self.proxy))
        }
        #expect(gateway.respond(to: .get(link(fixture.live.recordName), from: Self.proxy)).status.code == 429)
        #expect(gateway.respond(to: .get(link(fixture.live.recordName), forwardedFor: "203.0.113.50", from: Self.proxy)).status.code == 200)
    }

    @Test func withoutLimitsNothingIsRefused() throws {
        let fixture = try GatewayFixture()
        let gateway = try fixture.gateway { $0.missLimit = nil; $0.requestLimit = nil }
        for _ in 0..<150 { _ = gateway.respond(to: .get(link(GatewayFixture.unknown), from: Self.guesser)) }
        #expect(gateway.respond(to: .get(link(fixture.live.recordName), from: Self.guesser)).status.code == 200)
    }

    @Test(arguments: [(Accepting.vCard, "text/plain; charset=utf-8"), (Accepting.page, "text/html; charset=utf-8")])
    func aRefusalIsInTheFormAsked(accept: String, type: String) throws {
        let fixture = try GatewayFixture()
        let gateway = try fixture.gateway()
        for _ in 0..<20 { _ = gateway.respond(to: .get(link(GatewayFixture.unknown), from: Self.guesser)) }
        let refused = gateway.respond(to: .get(link(fixture.live.recordName), accept: accept, from: Self.guesser))
        #expect(refused.status.code == 429)
        #expect(refused.header("Content-Type") == type)
        #expect(refused.header("Vary") == "Accept")
    }

    @Test func aRateLimiterRefillsOneRequestPerInterval() {
        let limiter = RateLimiter(RateLimit(burst: 3, interval: .seconds(10)))
        let start = GatewayFixture.now
        for _ in 0..<3 { #expect(limiter.take(42, at: start) == nil) }
        #expect(limiter.take(42, at: start) == .seconds(10))
        limiter.refund(42)
        #expect(limiter.take(42, at: start) == nil, "a refunded request may be made again")
        #expect(limiter.take(42, at: start) == .seconds(10))
        #expect(limiter.take(7, at: start) == nil)
        #expect(limiter.take(42, at: start.advanced(by: .milliseconds(9_999))) == .milliseconds(1))
        #expect(limiter.take(42, at: start.advanced(by: .seconds(10))) == nil)
        #expect(limiter.take(42, at: start.advanced(by: .seconds(10))) != nil)
    }

    /// Misses in flight at once cannot overrun the allowance: each takes
    /// its place before the lookup, not after.
    @Test func concurrentMissesGetExactlyTheBurst() throws {
        let fixture = try GatewayFixture()
        let gateway = try fixture.gateway()
        let statuses = Mutex<[Int: Int]>([:])
        DispatchQueue.concurrentPerform(iterations: 400) { _ in
            let status = gateway.respond(to: .get(link(GatewayFixture.unknown), from: Self.guesser)).status.code
            statuses.withLock { $0[status, default: 0] += 1 }
        }
        #expect(statuses.withLock { $0 } == [404: 20, 429: 380])
    }
}
