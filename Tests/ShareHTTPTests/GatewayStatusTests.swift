import ShareClip
import ShareHTTP
import ShareLog
import Testing

/// The status a client sees for each kind of request: a live share, a
/// damaged link, an unknown or ended share, another method, a refused
/// `Accept`, an oversized request.
@Suite struct GatewayStatusTests {
    @Test(arguments: Accepting.all)
    func aLiveShareIsServedWith200InTheFormAsked(accept: String?) throws {
        let fixture = try GatewayFixture()
        let response = try fixture.gateway().respond(to: .get(link(fixture.live.recordName), accept: accept))
        #expect(response.status.code == 200)
        #expect(response.status.reason == "OK")
        let expectedType = switch accept ?? "" {
        case Accepting.vCard: "text/vcard; charset=utf-8"
        case Accepting.json: "application/json; charset=utf-8"
        case Accepting.events: "application/vnd.sharelog.events"
        default: "text/html; charset=utf-8"
        }
        #expect(response.header("Content-Type") == expectedType)
    }

    @Test(arguments: Accepting.all)
    func headGetsTheStatusHeadersAndBodyOfGet(accept: String?) throws {
        let fixture = try GatewayFixture()
        let gateway = try fixture.gateway { $0.requestLimit = nil; $0.missLimit = nil }
        for name in [fixture.live.recordName, fixture.expired.recordName, fixture.revoked.recordName, GatewayFixture.unknown] {
            let get = GatewayRequest.get(link(name), accept: accept)
            let answers = (gateway.respond(to: get), gateway.respond(to: get.with(method: "HEAD")))
            #expect(answers.0.status == answers.1.status)
            #expect(answers.0.headers == answers.1.headers)
            #expect(answers.0.body == answers.1.body, "the server sends HEAD's Content-Length from the body it drops")
        }
    }

    @Test(arguments: ["TAG", "W/TAG", "*", "\"v-0\", TAG", "  TAG  "])
    func aMatchingIfNoneMatchGets304WithoutABody(field: String) throws {
        let fixture = try GatewayFixture()
        let gateway = try fixture.gateway()
        let first = gateway.respond(to: .get(link(fixture.live.recordName)))
        let tag = try #require(first.header("ETag"))
        let again = gateway.respond(to: .get(link(fixture.live.recordName), ifNoneMatch: field.replacingOccurrences(of: "TAG", with: tag)))
        #expect(again.status.code == 304)
        #expect(again.sentBody(for: "GET") == 0, "a 304 sends no body")
        #expect(again.body == first.body, "its Content-Length is the 200's (RFC 9110 §8.6)")
        #expect(again.header("ETag") == tag)
    }

    @Test func anotherRepresentationsTagIsNotAMatch() throws {
        let fixture = try GatewayFixture()
        let gateway = try fixture.gateway()
        let page = gateway.respond(to: .get(link(fixture.live.recordName)))
        let vCardTag = try #require(gateway.respond(to: .get(link(fixture.live.recordName), accept: Accepting.vCard)).header("ETag"))
        #expect(page.header("ETag") != vCardTag)
        let asked = gateway.respond(to: .get(link(fixture.live.recordName), ifNoneMatch: vCardTag))
        #expect(asked.status.code == 200)
        #expect(asked.body == page.body)
    }

    /// The same rules as `AppClipLinkParser`: a missing, empty, repeated or
    /// non-UUID id, a fragment, a character a link cannot hold.
    @Test(arguments: [
        "/appclip",
        "/appclip?",
        "/appclip?id=",
        "/appclip?ID=33939938-0c7b-43f6-99f4-cd6379430856",
        "/appclip?id=not-a-uuid",
        "/appclip?id=33939938-0c7b-43f6-99f4-cd637943085",
        "/appclip?id=339399380c7b43f699f4cd6379430856",
        "/appclip?id={33939938-0c7b-43f6-99f4-cd6379430856}",
        "/appclip?id=33939938-0c7b-43f6-99f4-cd6379430856&id=33939938-0c7b-43f6-99f4-cd6379430856",
        "/appclip?id=33939938-0c7b-43f6-99f4-cd6379430856#top",
        "/appclip?id=%zz",
        "/appclip?id=33939938-0c7b-43f6-99f4-cd6379430856 ",
    ])
    func aDamagedLinkGets400(target: String) throws {
        #expect(throws: AppClipLinkError.self) { try AppClipLinkParser.parse(target: target) }
        let fixture = try GatewayFixture()
        let gateway = try fixture.gateway()
        let page = gateway.respond(to: .get(target))
        #expect(page.status.code == 400)
        #expect(page.text.contains("Damaged link"))
        #expect(gateway.respond(to: .get(target, accept: Accepting.json)).status.code == 400)
        #expect(gateway.respond(to: .get(target, accept: Accepting.events)).status.code == 400)
    }

    @Test func theLinkVariationsTheParserAcceptsAreServed() throws {
        let fixture = try GatewayFixture()
        let gateway = try fixture.gateway()
        let id = fixture.live.recordName.description
        for target in [
            "/appclip?id=\(id.uppercased())", "/appclip/?id=\(id)", "/appclip?utm_source=qr&id=\(id)&x",
            "/appclip?%69d=\(id.replacingOccurrences(of: "-", with: "%2D"))",
        ] {
            #expect(gateway.respond(to: .get(target)).status.code == 200, "\(target)")
        }
    }

    @Test(arguments: Accepting.all)
    func anIdNoShareHasGets404(accept: String?) throws {
        let fixture = try GatewayFixture()
        let response = try fixture.gateway().respond(to: .get(link(GatewayFixture.unknown), accept: accept))
        #expect(response.status.code == 404)
    }

    @Test(arguments: ["/", "/index.html", "/favicon.ico", "/appclips?id=x", "/AppClip?id=x", "/.well-known/", "*"])
    func aPathTheGatewayDoesNotServeGets404(target: String) throws {
        let fixture = try GatewayFixture()
        let response = try fixture.gateway().respond(to: .get(target))
        #expect(response.status.code == 404)
        #expect(response.route == .unknown)
    }

    @Test(arguments: ["POST", "PUT", "DELETE", "PATCH", "OPTIONS", "get", "Head"])
    func anotherMethodGets405WithAllow(method: String) throws {
        let fixture = try GatewayFixture()
        let gateway = try fixture.gateway()
        for target in [link(fixture.live.recordName), "/.well-known/apple-app-site-association", "/apple-app-site-association"] {
            let response = gateway.respond(to: GatewayRequest.get(target).with(method: method))
            #expect(response.status.code == 405, "\(method) \(target)")
            #expect(response.header("Allow") == "GET, HEAD")
            #expect(response.body.isEmpty == false)
        }
    }

    @Test(arguments: ["text/html;q=0", "*/*;q=0", "text/html;q=0, image/png"])
    func anAcceptThatRefusesEveryFormGets406(accept: String) throws {
        let fixture = try GatewayFixture()
        let response = try fixture.gateway().respond(to: .get(link(fixture.live.recordName), accept: accept))
        #expect(response.status.code == 406)
        #expect(response.text.contains("text/html, text/vcard, application/json and application/vnd.sharelog.events"))
    }

    /// 410 says when the share ended and why, in words a person reads.
    @Test(arguments: [nil, Accepting.vCard])
    func anEndedShareGets410SayingWhenAndWhy(accept: String?) throws {
        let fixture = try GatewayFixture()
        let gateway = try fixture.gateway()
        let expired = gateway.respond(to: .get(link(fixture.expired.recordName), accept: accept))
        #expect(expired.status.code == 410)
        #expect(expired.status.reason == "Gone")
        #expect(expired.text.contains("This card was shared for a limited time, which ended on 15 Jan 2027, 07:01 UTC."))
        let revoked = gateway.respond(to: .get(link(fixture.revoked.recordName), accept: accept))
        #expect(revoked.status.code == 410)
        #expect(revoked.text.contains("The person who shared this card withdrew it on 15 Jan 2027, 07:45 UTC."))
        #expect(!revoked.text.contains("limited time"))
    }

    /// Lazy expiry: from its `expiresAt` on, unswept, a share is gone.
    @Test func aShareIsGoneFromTheMillisecondItExpires() throws {
        let fixture = try GatewayFixture()
        let atExpiry = Timestamp(milliseconds: 1_800_000_120_000)
        let oneBefore = Timestamp(milliseconds: 1_800_000_119_999)
        #expect(try fixture.gateway(clock: FixedClock(oneBefore)).respond(to: .get(link(fixture.live.recordName))).status.code == 200)
        let gone = try fixture.gateway(clock: FixedClock(atExpiry)).respond(to: .get(link(fixture.live.recordName)))
        #expect(gone.status.code == 410)
        #expect(gone.text.contains("which ended on 15 Jan 2027, 08:02 UTC"))
    }

    @Test func aTargetOverTheLimitGets414() throws {
        let fixture = try GatewayFixture()
        let gateway = try fixture.gateway()
        let base = link(fixture.live.recordName) + "&pad="
        let atLimit = base + String(repeating: "a", count: 2048 - base.utf8.count)
        #expect(atLimit.utf8.count == 2048)
        #expect(gateway.respond(to: .get(atLimit)).status.code == 200)
        let response = gateway.respond(to: .get(atLimit + "a"))
        #expect(response.status.code == 414)
        #expect(response.status.reason == "URI Too Long")
    }

    @Test func headersOverTheLimitGet431() throws {
        let fixture = try GatewayFixture()
        let gateway = try fixture.gateway()
        #expect(gateway.respond(to: .get(link(fixture.live.recordName), headerBytes: 8192)).status.code == 200)
        let response = gateway.respond(to: .get(link(fixture.live.recordName), headerBytes: 8193))
        #expect(response.status.code == 431)
        #expect(response.status.reason == "Request Header Fields Too Large")
    }

    @Test func tooManyMissesGet429WithRetryAfter() throws {
        let fixture = try GatewayFixture()
        let gateway = try fixture.gateway()
        for _ in 0..<20 { _ = gateway.respond(to: .get(link(GatewayFixture.unknown))) }
        let response = gateway.respond(to: .get(link(fixture.live.recordName)))
        #expect(response.status.code == 429)
        #expect(response.header("Retry-After") == "20")
    }
}
