import SampleCards
import ShareHTTP
import ShareLog
import Testing

/// No cache keeps a card past its share's end: `max-age` is the whole
/// seconds the share has left, at most 300, `Expires` is `Date` plus that,
/// 304 only while the share lives, and nothing of a 4xx is stored. The
/// expected fields are written out by hand from the fixture's times.
@Suite struct GatewayCacheTests {
    /// One request of each kind a client can make, with the status it gets.
    enum Asked: String, CaseIterable, CustomTestStringConvertible {
        case live, notModified, siteAssociation, damaged, unknown, expired, revoked, unknownPath, post, notAcceptable, tooLong,
            headersTooLarge, throttled

        var testDescription: String { rawValue }

        var status: Int {
            switch self {
            case .live, .siteAssociation: 200
            case .notModified: 304
            case .damaged: 400
            case .unknown, .unknownPath: 404
            case .post: 405
            case .notAcceptable: 406
            case .expired, .revoked: 410
            case .tooLong: 414
            case .throttled: 429
            case .headersTooLarge: 431
            }
        }

        func response(_ fixture: GatewayFixture) throws -> GatewayResponse {
            let gateway = try fixture.gateway()
            let live = link(fixture.live.recordName)
            switch self {
            case .live: return gateway.respond(to: .get(live))
            case .notModified: return gateway.respond(to: .get(live, ifNoneMatch: "*"))
            case .siteAssociation: return gateway.respond(to: .get("/.well-known/apple-app-site-association"))
            case .damaged: return gateway.respond(to: .get("/appclip?id=nope"))
            case .unknown: return gateway.respond(to: .get(link(GatewayFixture.unknown)))
            case .expired: return gateway.respond(to: .get(link(fixture.expired.recordName)))
            case .revoked: return gateway.respond(to: .get(link(fixture.revoked.recordName)))
            case .unknownPath: return gateway.respond(to: .get("/wp-login.php"))
            case .post: return gateway.respond(to: GatewayRequest.get(live).with(method: "POST"))
            case .notAcceptable: return gateway.respond(to: .get(live, accept: "text/html;q=0"))
            case .tooLong: return gateway.respond(to: .get(live + "&" + String(repeating: "x", count: 3000)))
            case .headersTooLarge: return gateway.respond(to: .get(live, headerBytes: 10_000))
            case .throttled:
                for _ in 0..<20 { _ = gateway.respond(to: .get(link(GatewayFixture.unknown))) }
                return gateway.respond(to: .get(live))
            }
        }
    }

    @Test func aShareWith120SecondsLeftMayBeKept120Seconds() throws {
        let fixture = try GatewayFixture()
        let response = try fixture.gateway().respond(to: .get(link(fixture.live.recordName)))
        #expect(response.header("Date") == "Fri, 15 Jan 2027 08:00:00 GMT")
        #expect(response.header("Cache-Control") == "private, max-age=120, must-revalidate")
        #expect(response.header("Expires") == "Fri, 15 Jan 2027 08:02:00 GMT")
    }

    @Test func aShareWithAWeekLeftMayBeKeptFiveMinutesAtMost() throws {
        let fixture = try GatewayFixture()
        let share = try fixture.add(SampleCard.make(index: 11), ttl: .seconds(7 * 86_400))
        let response = try fixture.gateway().respond(to: .get(link(share.recordName)))
        #expect(response.header("Cache-Control") == "private, max-age=300, must-revalidate")
        #expect(response.header("Expires") == "Fri, 15 Jan 2027 08:05:00 GMT")
    }

    /// Created 29.5 s before now with a 120 s TTL: 90.5 s left, 90 whole seconds.
    @Test func maxAgeCountsOnlyWholeSecondsLeft() throws {
        let fixture = try GatewayFixture()
        let share = try fixture.add(SampleCard.make(index: 12), ttl: .seconds(120), createdAt: Timestamp(milliseconds: 1_799_999_970_500))
        let response = try fixture.gateway().respond(to: .get(link(share.recordName)))
        #expect(response.header("Cache-Control") == "private, max-age=90, must-revalidate")
        #expect(response.header("Expires") == "Fri, 15 Jan 2027 08:01:30 GMT")
    }

    /// At 08:00:00.250 the share has 119.75 s left: 119; Expires is
    /// 08:01:59.250, written to the second.
    @Test func expiresIsTheDateFieldPlusMaxAge() throws {
        let fixture = try GatewayFixture()
        let clock = FixedClock(Timestamp(milliseconds: 1_800_000_000_250))
        let response = try fixture.gateway(clock: clock).respond(to: .get(link(fixture.live.recordName)))
        #expect(response.header("Date") == "Fri, 15 Jan 2027 08:00:00 GMT")
        #expect(response.header("Cache-Control") == "private, max-age=119, must-revalidate")
        #expect(response.header("Expires") == "Fri, 15 Jan 2027 08:01:59 GMT")
    }

    @Test func aConfiguredMaximumIsHonoured() throws {
        let fixture = try GatewayFixture()
        let gateway = try fixture.gateway { $0.cache = CachePolicy(maxAge: .seconds(30)) }
        let response = gateway.respond(to: .get(link(fixture.live.recordName)))
        #expect(response.header("Cache-Control") == "private, max-age=30, must-revalidate")
        #expect(response.header("Expires") == "Fri, 15 Jan 2027 08:00:30 GMT")
    }

    @Test(arguments: Accepting.all)
    func everyFormOfALiveShareHasTheSameLifetime(accept: String?) throws {
        let fixture = try GatewayFixture()
        let response = try fixture.gateway().respond(to: .get(link(fixture.live.recordName), accept: accept))
        #expect(response.header("Cache-Control") == "private, max-age=120, must-revalidate")
        #expect(response.header("Expires") == "Fri, 15 Jan 2027 08:02:00 GMT")
    }

    @Test func a304CarriesTheLifetimeAndTagOfThe200() throws {
        let fixture = try GatewayFixture()
        let clock = SettableClock(GatewayFixture.now)
        let gateway = try fixture.gateway(clock: clock)
        let first = gateway.respond(to: .get(link(fixture.live.recordName)))
        let tag = try #require(first.header("ETag"))
        clock.set(Timestamp(milliseconds: 1_800_000_100_000))
        let again = gateway.respond(to: .get(link(fixture.live.recordName), ifNoneMatch: tag))
        #expect(again.status.code == 304)
        #expect(again.header("ETag") == tag)
        #expect(again.header("Date") == "Fri, 15 Jan 2027 08:01:40 GMT")
        #expect(again.header("Cache-Control") == "private, max-age=20, must-revalidate")
        #expect(again.header("Expires") == "Fri, 15 Jan 2027 08:02:00 GMT")
    }

    /// The client's copy was right while the share lived; once it ended,
    /// revalidation must say so, whatever tag the client holds.
    @Test func anEndedShareIsNever304EvenForTheTagItHad() throws {
        let fixture = try GatewayFixture()
        let clock = SettableClock(GatewayFixture.now)
        let gateway = try fixture.gateway(clock: clock)
        let tag = try #require(gateway.respond(to: .get(link(fixture.live.recordName))).header("ETag"))
        clock.set(Timestamp(milliseconds: 1_800_000_120_000))
        for field in [tag, "*", "W/\(tag)"] {
            let response = gateway.respond(to: .get(link(fixture.live.recordName), ifNoneMatch: field))
            #expect(response.status.code == 410)
            #expect(response.header("ETag") == nil)
            #expect(response.header("Cache-Control") == "no-store")
        }
        for name in [fixture.expired.recordName, fixture.revoked.recordName, GatewayFixture.unknown] {
            #expect(gateway.respond(to: .get(link(name), ifNoneMatch: "*")).status.code != 304)
        }
    }

    @Test(arguments: Asked.allCases)
    func everyAnswerIsTheStatusItShouldBe(asked: Asked) throws {
        let fixture = try GatewayFixture()
        #expect(try asked.response(fixture).status.code == asked.status)
    }

    @Test(arguments: Asked.allCases.filter { $0.status >= 400 })
    func noClientErrorIsStored(asked: Asked) throws {
        let fixture = try GatewayFixture()
        let response = try asked.response(fixture)
        #expect(response.header("Cache-Control") == "no-store")
        #expect(response.header("Expires") == nil)
        #expect(response.header("ETag") == nil)
    }

    @Test(arguments: Asked.allCases)
    func everyAnswerIsNosniffWithoutReferrerAndDated(asked: Asked) throws {
        let fixture = try GatewayFixture()
        let response = try asked.response(fixture)
        #expect(response.header("X-Content-Type-Options") == "nosniff")
        #expect(response.header("Referrer-Policy") == "no-referrer")
        #expect(response.header("Date") == "Fri, 15 Jan 2027 08:00:00 GMT")
        #expect(response.header("Strict-Transport-Security") == nil)
        #expect(response.headers.filter { $0.name == "Cache-Control" }.count <= 1)
    }

    @Test(arguments: Asked.allCases.filter { ![.siteAssociation, .unknownPath, .post, .tooLong, .headersTooLarge].contains($0) })
    func everyLinkAnswerVariesOnAccept(asked: Asked) throws {
        let fixture = try GatewayFixture()
        #expect(try asked.response(fixture).header("Vary") == "Accept")
    }

    @Test func theSiteAssociationFileIsPublicForAnHour() throws {
        let fixture = try GatewayFixture()
        let response = try Asked.siteAssociation.response(fixture)
        #expect(response.header("Cache-Control") == "public, max-age=3600")
    }

    @Test func aGatewayServingTLSAsksForHTTPSOnly() throws {
        let fixture = try GatewayFixture()
        let gateway = try fixture.gateway { $0.strictTransportSecurity = true }
        for target in [link(fixture.live.recordName), "/nothing"] {
            #expect(gateway.respond(to: .get(target)).header("Strict-Transport-Security") == "max-age=31536000")
        }
    }

    @Test func entityTagsAreStrongAndDifferPerShareAndForm() throws {
        let fixture = try GatewayFixture()
        let gateway = try fixture.gateway()
        let other = try fixture.add(SampleCard.make(index: 13))
        var tags: Set<String> = []
        for name in [fixture.live.recordName, other.recordName] {
            for accept in Accepting.all.dropFirst() {
                let tag = try #require(gateway.respond(to: .get(link(name), accept: accept)).header("ETag"))
                #expect(tag.hasPrefix("\"") && tag.hasSuffix("\"") && !tag.hasPrefix("W/"))
                tags.insert(tag)
            }
        }
        #expect(tags.count == 8)
        let again = gateway.respond(to: .get(link(fixture.live.recordName), accept: Accepting.json)).header("ETag")
        #expect(tags.contains(again ?? ""))
    }
}
