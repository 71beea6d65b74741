import Foundation
import ShareHTTP
import ShareLog
import Testing

/// The access log says what happened, never who saw whose card: method,
/// route, status, bytes, time, and at most a record name's daily tag, which
/// matches within a UTC day and changes at midnight.
@Suite struct AccessLogLineTests {
    /// 00:00:00.000 and 23:59:59.999 of Fri 15 Jan 2027 UTC, and the next midnight.
    static let dayStart = Timestamp(milliseconds: 1_799_971_200_000)
    static let dayEnd = Timestamp(milliseconds: 1_800_057_599_999)
    static let nextDay = Timestamp(milliseconds: 1_800_057_600_000)
    static let name = RecordName(uuid: UUID(uuidString: "33939938-0c7b-43f6-99f4-cd6379430856")!)

    @Test func aLineHasItsFieldsInOrder() {
        let line = AccessLogLine(method: "GET", route: .share, status: 200, bytes: 1532, microseconds: 87, tag: "1f2e3d4c5b6a7988")
        #expect(line.description == "http method=GET route=/appclip status=200 bytes=1532 us=87 tag=1f2e3d4c5b6a7988")
        let untagged = AccessLogLine(method: "HEAD", route: .siteAssociation, status: 404, bytes: 0, microseconds: 3, tag: nil)
        #expect(untagged.description == "http method=HEAD route=/apple-app-site-association status=404 bytes=0 us=3")
    }

    @Test(arguments: ["BREW", "get", "GET route=/x status=200", "GET\nhttp method=GET", "", "\u{1B}[2J"])
    func aMethodHTTPDoesNotDefineIsLoggedAsOther(method: String) {
        let line = AccessLogLine(method: method, route: .unknown, status: 405, bytes: 10, microseconds: 1, tag: nil)
        #expect(line.description == "http method=other route=- status=405 bytes=10 us=1")
    }

    @Test(arguments: ["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH", "TRACE", "CONNECT"])
    func theMethodsHTTPDefinesAreLoggedAsTheyAre(method: String) {
        let line = AccessLogLine(method: method, route: .share, status: 405, bytes: 10, microseconds: 1, tag: nil)
        #expect(line.description.hasPrefix("http method=\(method) route=/appclip "))
    }

    @Test func aShareRequestIsLoggedByRouteAndTagOnly() throws {
        let fixture = try GatewayFixture()
        let gateway = try fixture.gateway()
        let name = fixture.live.recordName
        let request = GatewayRequest.get(link(name) + "&utm_source=secret", from: .ipv4(0xCB00_7107))
        let response = gateway.respond(to: request)
        let line = gateway.logLine(request, response, microseconds: 87).description
        let fields = line.split(separator: " ")
        #expect(fields.count == 7, "\(line)")
        #expect(fields.prefix(5).map(String.init) == ["http", "method=GET", "route=/appclip", "status=200", "bytes=\(response.body.count)"])
        #expect(fields[5] == "us=87")
        let tag = String(fields[6].dropFirst(4))
        #expect(fields[6].hasPrefix("tag="))
        #expect(tag.count == 16 && tag.allSatisfy { $0.isHexDigit && !$0.isUppercase })
        for secret in [name.description, name.description.replacingOccurrences(of: "-", with: ""), String(name.description.prefix(8)),
                       "utm_source", "203.0.113.7", "appclip?id"] {
            #expect(!line.lowercased().contains(secret), "\(secret)")
        }
    }

    @Test func answersWithoutAValidNameHaveNoTag() throws {
        let fixture = try GatewayFixture()
        let gateway = try fixture.gateway()
        for target in ["/appclip?id=nope", "/secret/path?q=1", "/.well-known/apple-app-site-association"] {
            let request = GatewayRequest.get(target)
            let line = gateway.logLine(request, gateway.respond(to: request), microseconds: 5).description
            #expect(!line.contains("tag="))
            #expect(!line.contains("nope") && !line.contains("secret"))
        }
        let post = GatewayRequest.get(link(fixture.live.recordName)).with(method: "POST")
        #expect(!gateway.logLine(post, gateway.respond(to: post), microseconds: 5).description.contains("tag="))
    }

    /// Misses are tagged too, so a guesser's run shows in the log as many
    /// different tags.
    @Test func unknownAndEndedNamesAreTaggedToo() throws {
        let fixture = try GatewayFixture()
        let gateway = try fixture.gateway()
        var tags: Set<String> = []
        for name in [GatewayFixture.unknown, fixture.expired.recordName, fixture.revoked.recordName, fixture.live.recordName] {
            let request = GatewayRequest.get(link(name))
            let line = gateway.logLine(request, gateway.respond(to: request), microseconds: 5).description
            let tag = try #require(line.split(separator: " ").last.flatMap { $0.hasPrefix("tag=") ? String($0) : nil }, "\(line)")
            tags.insert(tag)
        }
        #expect(tags.count == 4)
    }

    @Test func theTagIsStableWithinAUTCDayAndChangesAtMidnight() {
        let tagger = RecordNameTagger()
        let morning = tagger.tag(Self.name, at: Self.dayStart)
        #expect(tagger.tag(Self.name, at: GatewayFixture.now) == morning)
        #expect(tagger.tag(Self.name, at: Self.dayEnd) == morning)
        let tomorrow = tagger.tag(Self.name, at: Self.nextDay)
        #expect(tomorrow != morning)
        #expect(tagger.tag(Self.name, at: Self.nextDay.advanced(by: .seconds(86_399))) == tomorrow)
        let other = RecordName(uuid: UUID(uuidString: "33939938-0c7b-43f6-99f4-cd6379430857")!)
        #expect(tagger.tag(other, at: Self.nextDay) != tomorrow)
    }

    @Test func theGatewaysTagFollowsItsClockAcrossMidnight() throws {
        let fixture = try GatewayFixture()
        let clock = SettableClock(Self.dayEnd)
        let gateway = try fixture.gateway(clock: clock)
        let request = GatewayRequest.get(link(GatewayFixture.unknown))
        let response = gateway.respond(to: request)
        let before = gateway.logLine(request, response, microseconds: 1).description
        #expect(gateway.logLine(request, response, microseconds: 1).description == before)
        clock.set(Self.nextDay)
        let after = gateway.logLine(request, response, microseconds: 1).description
        #expect(after != before)
        #expect(after.replacingOccurrences(of: #"tag=[0-9a-f]{16}"#, with: "", options: .regularExpression)
            == before.replacingOccurrences(of: #"tag=[0-9a-f]{16}"#, with: "", options: .regularExpression))
    }

    /// Two processes (two taggers) never share a key: a log cannot be
    /// matched against another's, even on the same day.
    @Test func taggersDoNotShareKeys() {
        let tags = (0..<4).map { _ in RecordNameTagger().tag(Self.name, at: GatewayFixture.now) }
        #expect(Set(tags).count == 4)
    }
}
