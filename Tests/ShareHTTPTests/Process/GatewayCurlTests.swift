import Foundation
import Testing
import TestSupport

/// A real `sharelog http` driven by Debian's curl: every status code and
/// header field docs/HTTP.md promises, as a client on the wire sees them.
/// Each test starts its own gateway (the limits keep per-address counts
/// for a gateway's life, and `--now` stops its clock). Shares are made at
/// 2026-03-02T09:00:00Z for 7 days; gateways serve at 2026-03-04T12:00:00Z.
@Suite(.serialized) struct GatewayCurlTests {
    /// The fields every answer carries, whatever its status.
    static func expectSecurityFields(_ answer: CurlAnswer, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(answer.header("X-Content-Type-Options") == "nosniff", "\(what)", sourceLocation: sourceLocation)
        #expect(answer.header("Referrer-Policy") == "no-referrer", "\(what)", sourceLocation: sourceLocation)
        #expect(answer.header("Date") == ProcessClock.servingDate, "\(what): Date follows --now", sourceLocation: sourceLocation)
        #expect(answer.header("Strict-Transport-Security") == nil, "\(what): no HSTS over plain HTTP", sourceLocation: sourceLocation)
    }

    /// The fields of an answer no cache may keep.
    static func expectNoStore(_ answer: CurlAnswer, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(answer.header("Cache-Control") == "no-store", "\(what)", sourceLocation: sourceLocation)
        #expect(answer.header("ETag") == nil, "\(what)", sourceLocation: sourceLocation)
        expectSecurityFields(answer, what, sourceLocation: sourceLocation)
    }

    /// The directives of a `Cache-Control` value, lowercased.
    static func directives(_ value: String?) -> Set<String> {
        Set((value ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
    }

    @Test func aLiveShareIsServedInEachFormByAccept() throws {
        let fixture = try ProcessStore()
        let id = try fixture.share(ProcessCards.plain)
        let gateway = try fixture.gateway()
        defer { _ = try? gateway.stop() }
        let link = gateway.baseURL + "/appclip?id=" + id

        let browser = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"
        var tags: Set<String> = []
        for accept in ["Accept:", "Accept: */*", "Accept: " + browser, "Accept: image/png", "Accept: text/html"] {
            let page = try CurlClient.fetch(link, ["-H", accept])
            #expect(page.status == 200, "\(accept)")
            #expect(page.header("Content-Type") == "text/html; charset=utf-8", "\(accept)")
            tags.insert(page.header("ETag") ?? "")
        }
        #expect(tags.count == 1, "one page, one tag: \(tags)")

        let page = try CurlClient.fetch(link)
        Self.expectSecurityFields(page, "page")
        #expect(page.header("Vary") == "Accept")
        #expect(Self.directives(page.header("Cache-Control")).isSuperset(of: ["private", "max-age=300"]), "\(page.header("Cache-Control") ?? "none")")
        #expect(page.header("Expires") == ProcessClock.servingExpires)
        let policy = page.header("Content-Security-Policy") ?? ""
        for directive in ["default-src 'none'", "img-src data:", "frame-ancestors 'none'"] {
            #expect(policy.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.contains(directive), "\(directive) in \(policy)")
        }
        #expect(!policy.contains("script-src") && !policy.contains("unsafe-inline") && !policy.contains("http"), "\(policy)")
        #expect(page.text.contains(#"<meta name="apple-itunes-app" content="app-id=1234567890, app-clip-bundle-id=com.example.cards.Clip, app-clip-display=card">"#))
        for text in ["Ada Lovelace", "Programmer", "Analytical Engines Ltd", "href=\"/appclip?id=\(id)&amp;format=vcf\""] {
            #expect(page.text.contains(text), "the page shows \(text)")
        }

        let card = try CurlClient.fetch(link, ["-H", "Accept: text/vcard"])
        #expect(card.status == 200)
        #expect(card.header("Content-Type") == "text/vcard; charset=utf-8")
        #expect(card.body == ProcessCards.plain, "the stored card, byte for byte")
        #expect(card.header("Content-Disposition") == "attachment; filename=\"Ada Lovelace.vcf\"; filename*=UTF-8''Ada%20Lovelace.vcf")
        #expect(card.header("Vary") == "Accept")
        #expect(card.header("Expires") == ProcessClock.servingExpires)
        Self.expectSecurityFields(card, "vcard")

        let download = try CurlClient.fetch(link + "&format=vcf", ["-H", "Accept: text/html"])
        #expect(download.status == 200)
        #expect(download.header("Content-Type") == "text/vcard; charset=utf-8", "format=vcf wins over Accept")
        #expect(download.body == ProcessCards.plain)

        let json = try CurlClient.fetch(link, ["-H", "Accept: application/json"])
        #expect(json.status == 200)
        #expect(json.header("Content-Type") == "application/json; charset=utf-8")
        Self.expectSecurityFields(json, "json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.body)) as? [String: Any])
        let record = try #require((object["records"] as? [[String: Any]])?.first)
        #expect(record["recordName"] as? String == id)
        #expect(record["recordType"] as? String == "Card")
        let fields = try #require(record["fields"] as? [String: [String: Any]])
        #expect(fields["vcard"]?["value"] as? String == String(decoding: ProcessCards.plain, as: UTF8.self))
        #expect(fields["createdAt"]?["value"] as? Int == 1_772_442_000_000, "2026-03-02T09:00:00Z")
        #expect(fields["expiresAt"]?["value"] as? Int == 1_773_046_800_000, "2026-03-09T09:00:00Z")

        let events = try CurlClient.fetch(link, ["-H", "Accept: application/vnd.sharelog.events"])
        #expect(events.status == 200)
        #expect(events.header("Content-Type") == "application/vnd.sharelog.events")
        let uuid = try #require(UUID(uuidString: id)).uuid
        let nameBytes = withUnsafeBytes(of: uuid) { Array($0) }
        #expect(events.body.firstRange(of: nameBytes) != nil, "the events name their record")
        #expect(events.body.firstRange(of: ProcessCards.plain) != nil, "the events carry the card")

        let all = [page, card, json, events].map { $0.header("ETag") ?? "" }
        #expect(Set(all).count == 4 && all.allSatisfy { $0.hasPrefix("\"") && $0.hasSuffix("\"") && $0.count > 2 }, "four strong tags: \(all)")
    }

    @Test func headGetsTheSameFieldsAsGetAndNoBody() throws {
        let fixture = try ProcessStore()
        let id = try fixture.share(try ProcessCards.withPhotoFixture)
        let gateway = try fixture.gateway()
        defer { _ = try? gateway.stop() }
        let link = gateway.baseURL + "/appclip?id=" + id
        for accept in ["text/html", "text/vcard", "application/json", "application/vnd.sharelog.events"] {
            let get = try CurlClient.fetch(link, ["-H", "Accept: \(accept)"])
            let heads = try CurlClient.fetchAll([link, link], ["--head", "-H", "Accept: \(accept)"], bodiless: true)
            #expect(get.status == 200)
            for head in heads {
                #expect(head.status == 200, "\(accept)")
                #expect(head.headers.map { "\($0.name): \($0.value)" } == get.headers.map { "\($0.name): \($0.value)" }, "HEAD \(accept)")
                #expect(head.body.isEmpty)
            }
            #expect(Int(get.header("Content-Length") ?? "") == get.body.count)
        }
        let missing = try CurlClient.fetch(gateway.baseURL + "/appclip?id=0b5e2f7e-9d1c-4c2a-8f3e-5a6b7c8d9e0f", ["--head"])
        #expect(missing.status == 404)
        Self.expectNoStore(missing, "HEAD of an unknown id")
    }

    @Test func ifNoneMatchGets304OnlyWhileTheShareIsLive() throws {
        let fixture = try ProcessStore()
        let id = try fixture.share(ProcessCards.plain)
        let gateway = try fixture.gateway()
        defer { _ = try? gateway.stop() }
        let link = gateway.baseURL + "/appclip?id=" + id
        let first = try CurlClient.fetch(link, ["-H", "Accept: text/vcard"])
        let tag = try #require(first.header("ETag"))

        let again = try CurlClient.fetch(link, ["-H", "Accept: text/vcard", "-H", "If-None-Match: \(tag)"])
        #expect(again.status == 304)
        #expect(again.body.isEmpty)
        #expect(again.values("Content-Length") == ["\(ProcessCards.plain.count)"], "a 304 names the 200's length, or none (RFC 9110 §8.6)")
        #expect(again.header("ETag") == tag)
        #expect(again.header("Expires") == ProcessClock.servingExpires)
        #expect(Self.directives(again.header("Cache-Control")).isSuperset(of: ["private", "max-age=300"]))
        Self.expectSecurityFields(again, "304")

        let several = try CurlClient.fetch(link, ["-H", "Accept: text/vcard", "-H", "If-None-Match: \"nope\", \(tag)"])
        #expect(several.status == 304, "a list that names the tag")
        let other = try CurlClient.fetch(link, ["-H", "Accept: text/vcard", "-H", "If-None-Match: \"v-0000000000000000\""])
        #expect(other.status == 200 && other.body == ProcessCards.plain, "another tag gets the card")
        let otherForm = try CurlClient.fetch(link, ["-H", "Accept: application/json", "-H", "If-None-Match: \(tag)"])
        #expect(otherForm.status == 200, "the vCard's tag is not the JSON's")

        // The same tag, at a time after the share ended: 410, never 304.
        let later = try fixture.gateway(at: "2026-03-10T09:00:00Z")
        defer { _ = try? later.stop() }
        let ended = try CurlClient.fetch(later.baseURL + "/appclip?id=" + id, ["-H", "Accept: text/vcard", "-H", "If-None-Match: \(tag)"])
        #expect(ended.status == 410)
        #expect(ended.header("Cache-Control") == "no-store")
    }

    @Test func aShareNearItsEndIsCachedNoLongerThanItLasts() throws {
        let fixture = try ProcessStore()
        let id = try fixture.share(ProcessCards.plain)
        // 100 seconds before the share ends at 2026-03-09T09:00:00Z.
        let gateway = try fixture.gateway(at: "2026-03-09T08:58:20Z")
        defer { _ = try? gateway.stop() }
        for accept in ["text/html", "text/vcard", "application/json"] {
            let answer = try CurlClient.fetch(gateway.baseURL + "/appclip?id=" + id, ["-H", "Accept: \(accept)"])
            #expect(answer.status == 200)
            #expect(Self.directives(answer.header("Cache-Control")).isSuperset(of: ["private", "max-age=100"]), "\(answer.header("Cache-Control") ?? "none")")
            #expect(answer.header("Expires") == "Mon, 09 Mar 2026 09:00:00 GMT")
            #expect(answer.header("Date") == "Mon, 09 Mar 2026 08:58:20 GMT")
        }
    }

    @Test func malformedMissingAndRepeatedIDsAre400() throws {
        let fixture = try ProcessStore()
        let id = try fixture.share(ProcessCards.plain)
        let gateway = try fixture.gateway()
        defer { _ = try? gateway.stop() }
        let targets = [
            "/appclip", "/appclip?id=", "/appclip?id=not-a-record-name", "/appclip?id=\(id)&id=\(id)",
            "/appclip?id=\(id.dropLast())", "/appclip?id=\(id)x", "/appclip?ID=\(id)",
        ]
        for target in targets {
            let page = try CurlClient.fetch(gateway.baseURL + target)
            #expect(page.status == 400, "\(target)")
            #expect(page.header("Content-Type") == "text/html; charset=utf-8", "\(target)")
            #expect(page.text.contains("damaged") || page.text.contains("Damaged"), "\(target): \(page.text)")
            Self.expectNoStore(page, target)
        }
        let json = try CurlClient.fetch(gateway.baseURL + "/appclip?id=\(id)&id=\(id)", ["-H", "Accept: application/json"])
        #expect(json.status == 400)
        let object = try JSONSerialization.jsonObject(with: Data(json.body)) as? [String: Any]
        #expect(object?["serverErrorCode"] as? String == "BAD_REQUEST", "\(json.text)")
    }

    @Test func unknownIDsAndPathsAre404() throws {
        let fixture = try ProcessStore()
        _ = try fixture.share(ProcessCards.plain)
        let gateway = try fixture.gateway()
        defer { _ = try? gateway.stop() }
        let unknown = "0b5e2f7e-9d1c-4c2a-8f3e-5a6b7c8d9e0f"
        let page = try CurlClient.fetch(gateway.baseURL + "/appclip?id=" + unknown)
        #expect(page.status == 404)
        #expect(page.text.contains("There is no card at this link"), "\(page.text)")
        Self.expectNoStore(page, "unknown id")
        let json = try CurlClient.fetch(gateway.baseURL + "/appclip?id=" + unknown, ["-H", "Accept: application/json"])
        #expect(json.status == 404)
        let record = ((try JSONSerialization.jsonObject(with: Data(json.body)) as? [String: Any])?["records"] as? [[String: Any]])?.first
        #expect(record?["recordName"] as? String == unknown)
        #expect(record?["serverErrorCode"] as? String == "NOT_FOUND")
        for path in ["/", "/index.html", "/appclip/../etc/passwd", "/.well-known/other"] {
            let answer = try CurlClient.fetch(gateway.baseURL + path, ["--path-as-is"])
            #expect(answer.status == 404, "\(path)")
            Self.expectNoStore(answer, path)
        }
    }

    @Test func expiredAndRevokedSharesAre410WithWhenAndWhy() throws {
        let fixture = try ProcessStore()
        // Made for one day at 2026-03-01T08:00:00Z: ended 2026-03-02T08:00:00Z.
        let expired = try fixture.share(ProcessCards.plain, at: "2026-03-01T08:00:00Z", ttl: "1d")
        let revoked = try fixture.share(ProcessCards.plain)
        try fixture.revoke(revoked, at: "2026-03-03T15:30:00Z")
        let gateway = try fixture.gateway()
        defer { _ = try? gateway.stop() }

        let expiredPage = try CurlClient.fetch(gateway.baseURL + "/appclip?id=" + expired)
        #expect(expiredPage.status == 410)
        #expect(expiredPage.text.contains("This card has expired"), "\(expiredPage.text)")
        #expect(expiredPage.text.contains("2 Mar 2026, 08:00 UTC"), "when it ended")
        #expect(!expiredPage.text.contains("Ada Lovelace"), "nothing of the card")
        Self.expectNoStore(expiredPage, "expired page")

        let revokedPage = try CurlClient.fetch(gateway.baseURL + "/appclip?id=" + revoked)
        #expect(revokedPage.status == 410)
        #expect(revokedPage.text.contains("withdrew"), "why: \(revokedPage.text)")
        #expect(revokedPage.text.contains("3 Mar 2026, 15:30 UTC"), "when it was withdrawn")
        #expect(!revokedPage.text.contains("Ada Lovelace"))
        Self.expectNoStore(revokedPage, "revoked page")

        for (id, at, reason) in [(expired, 1_772_438_400_000, "ttl"), (revoked, 1_772_551_800_000, "revoked")] {
            let json = try CurlClient.fetch(gateway.baseURL + "/appclip?id=" + id, ["-H", "Accept: application/json"])
            #expect(json.status == 410)
            Self.expectNoStore(json, "410 json")
            let record = ((try JSONSerialization.jsonObject(with: Data(json.body)) as? [String: Any])?["records"] as? [[String: Any]])?.first
            #expect(record?["recordName"] as? String == id)
            #expect(record?["serverErrorCode"] as? String == "EXPIRED")
            #expect(record?["expiredAt"] as? Int == at)
            #expect(record?["expiryReason"] as? String == reason)
            #expect(!json.text.contains("Lovelace"))
            let card = try CurlClient.fetch(gateway.baseURL + "/appclip?id=" + id + "&format=vcf")
            #expect(card.status == 410)
            #expect(!card.text.contains("BEGIN:VCARD"))
        }
    }

    @Test func otherMethodsAre405WithAllow() throws {
        let fixture = try ProcessStore()
        let id = try fixture.share(ProcessCards.plain)
        let gateway = try fixture.gateway()
        defer { _ = try? gateway.stop() }
        let cases: [(String, String)] = [
            ("POST", "/appclip?id=" + id), ("PUT", "/appclip?id=" + id), ("DELETE", "/appclip?id=" + id), ("OPTIONS", "/appclip?id=" + id),
            ("POST", "/.well-known/apple-app-site-association"), ("DELETE", "/apple-app-site-association"),
        ]
        for (method, target) in cases {
            let answer = try CurlClient.fetch(gateway.baseURL + target, ["-X", method] + (method == "POST" || method == "PUT" ? ["--data", "x=1"] : []))
            #expect(answer.status == 405, "\(method) \(target)")
            #expect(answer.header("Allow") == "GET, HEAD", "\(method) \(target)")
            Self.expectNoStore(answer, "\(method) \(target)")
        }
        let still = try CurlClient.fetch(gateway.baseURL + "/appclip?id=" + id, ["-H", "Accept: text/vcard"])
        #expect(still.status == 200 && still.body == ProcessCards.plain, "the share is untouched")
    }

    @Test func refusingEveryFormIs406() throws {
        let fixture = try ProcessStore()
        let id = try fixture.share(ProcessCards.plain)
        let gateway = try fixture.gateway()
        defer { _ = try? gateway.stop() }
        for accept in ["text/html;q=0", "*/*;q=0", "text/html;q=0, image/png"] {
            let answer = try CurlClient.fetch(gateway.baseURL + "/appclip?id=" + id, ["-H", "Accept: \(accept)"])
            #expect(answer.status == 406, "\(accept)")
            #expect(!answer.text.contains("Lovelace"), "\(accept)")
            Self.expectNoStore(answer, accept)
        }
        let other = try CurlClient.fetch(gateway.baseURL + "/appclip?id=" + id, ["-H", "Accept: text/html;q=0, text/vcard"])
        #expect(other.status == 200 && other.body == ProcessCards.plain)
    }

    @Test func oversizedTargetsAre414AndHeadersAre431() throws {
        let fixture = try ProcessStore()
        let id = try fixture.share(ProcessCards.plain)
        let gateway = try fixture.gateway()
        defer { _ = try? gateway.stop() }
        let link = gateway.baseURL + "/appclip?id=" + id
        let long = try CurlClient.fetch(link + "&pad=" + String(repeating: "a", count: 3000))
        #expect(long.status == 414)
        Self.expectNoStore(long, "414")
        let big = try CurlClient.fetch(link, ["-H", "X-Padding: " + String(repeating: "b", count: 10_000)])
        #expect(big.status == 431)
        Self.expectNoStore(big, "431")

        // Beyond libmicrohttpd's memory for one connection, the library answers itself.
        let huge = try CurlClient.fetch(link + "&pad=" + String(repeating: "a", count: 40_000))
        #expect(huge.status == 414)
        let flood = try CurlClient.fetch(link, ["-H", "X-Padding: " + String(repeating: "b", count: 40_000)])
        #expect(flood.status == 431)
        // Its answer lacks the gateway's header fields (the one exception,
        // docs/HTTP.md "Status codes"), so it must at least echo nothing the
        // client sent and hold no card.
        for answer in [huge, flood] {
            let text = String(decoding: answer.body, as: UTF8.self)
            #expect(!text.contains(id) && !text.contains("aaaa") && !text.contains("bbbb"), "\(text)")
        }
        let fine = try CurlClient.fetch(link)
        #expect(fine.status == 200, "the gateway serves on")
    }

    @Test func missesBeyondTheirAllowanceAre429WithRetryAfter() throws {
        let fixture = try ProcessStore()
        let id = try fixture.share(ProcessCards.plain)
        let gateway = try fixture.gateway()
        defer { _ = try? gateway.stop() }
        let unknown = gateway.baseURL + "/appclip?id=0b5e2f7e-9d1c-4c2a-8f3e-5a6b7c8d9e0f"
        // The default: a burst of 20 misses from 127.0.0.4, then one every 20 s.
        let misses = try CurlClient.fetchAll(Array(repeating: unknown, count: 22), ["--interface", "127.0.0.4"])
        #expect(misses.map(\.status) == Array(repeating: 404, count: 20) + [429, 429])
        let throttled = try #require(misses.last)
        #expect(throttled.header("Retry-After") == "20")
        Self.expectNoStore(throttled, "429")
        let json = try CurlClient.fetch(unknown, ["--interface", "127.0.0.4", "-H", "Accept: application/json"])
        #expect(json.status == 429)
        #expect((try JSONSerialization.jsonObject(with: Data(json.body)) as? [String: Any])?["serverErrorCode"] as? String == "THROTTLED")

        let association = try CurlClient.fetch(gateway.baseURL + "/.well-known/apple-app-site-association", ["--interface", "127.0.0.4"])
        #expect(association.status == 200, "the site association file is never limited")
        let elsewhere = try CurlClient.fetch(gateway.baseURL + "/appclip?id=" + id, ["--interface", "127.0.0.5"])
        #expect(elsewhere.status == 200, "another address is served")

        // All share requests: a burst of 100 (the default), refilled once an
        // hour here (`--request-limit`) so that no refill races the test.
        let hourly = try fixture.gateway(ProcessApps.arguments + ["--request-limit", "100,1h"])
        defer { _ = try? hourly.stop() }
        let hits = try CurlClient.fetchAll(Array(repeating: hourly.baseURL + "/appclip?id=" + id, count: 101), ["--interface", "127.0.0.6", "-H", "Accept: text/vcard"])
        #expect(hits.prefix(100).allSatisfy { $0.status == 200 && $0.body == ProcessCards.plain })
        #expect(hits.last?.status == 429)
        #expect(hits.last.flatMap { Int($0.header("Retry-After") ?? "") }.map { (3000...3600).contains($0) } == true, "about an hour")
    }

    @Test func theSiteAssociationFileIsServedAtBothPathsWithoutRedirect() throws {
        let fixture = try ProcessStore()
        let gateway = try fixture.gateway()
        defer { _ = try? gateway.stop() }
        for path in ["/.well-known/apple-app-site-association", "/apple-app-site-association"] {
            let url = gateway.baseURL + path
            let followed = try CurlClient.run(["--location", "--output", "/dev/null", "--write-out", "%{http_code} %{num_redirects} %{content_type}", url])
            #expect(followed.text == "200 0 application/json", "\(path)")
            let answer = try CurlClient.fetch(url)
            #expect(answer.status == 200)
            Self.expectSecurityFields(answer, path)
            let file = try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
            #expect((file["appclips"] as? [String: Any])?["apps"] as? [String] == ["ABCDE12345.com.example.cards.Clip"])
            let details = ((file["applinks"] as? [String: Any])?["details"] as? [[String: Any]]) ?? []
            #expect(details.count == 1)
            #expect(details.first?["appIDs"] as? [String] == ["ABCDE12345.com.example.cards"])
            let components = details.first?["components"] as? [[String: Any]] ?? []
            #expect(components.contains { $0["/"] as? String == "/appclip" }, "\(components)")
            let head = try CurlClient.fetch(url, ["--head"])
            #expect(head.status == 200 && head.header("Content-Type") == "application/json")
        }

        let bare = try fixture.gateway([])
        defer { _ = try? bare.stop() }
        #expect(bare.lines.contains { $0.hasPrefix("sharelog: warning:") && $0.contains("apple-app-site-association") }, "\(bare.lines)")
        for path in ["/.well-known/apple-app-site-association", "/apple-app-site-association"] {
            let answer = try CurlClient.fetch(bare.baseURL + path)
            #expect(answer.status == 404, "\(path) without app ids")
            Self.expectNoStore(answer, path)
        }
    }

    @Test func curlReusesOneConnectionForSeveralRequests() throws {
        let fixture = try ProcessStore()
        let id = try fixture.share(ProcessCards.plain)
        let gateway = try fixture.gateway()
        defer { _ = try? gateway.stop() }
        let link = gateway.baseURL + "/appclip?id=" + id
        let ran = try CurlClient.run(["--verbose", "--output", "/dev/null", "--output", "/dev/null", "--output", "/dev/null", link, link, gateway.baseURL + "/apple-app-site-association"])
        #expect(ran.succeeded, "\(ran.error)")
        let log = ran.error.split(whereSeparator: \.isNewline)
        #expect(log.filter { $0.contains("Re-using existing connection") }.count == 2, "\(ran.error)")
        #expect(log.filter { $0.hasPrefix("* Connected to") }.count == 1, "one connection")
        #expect(log.filter { $0.hasPrefix("< HTTP/1.1 200") }.count == 3)
    }

    @Test func logLinesHoldNoRecordNameQueryOrReferer() throws {
        let fixture = try ProcessStore()
        let live = try fixture.share(ProcessCards.plain)
        let other = try fixture.share(ProcessCards.plain)
        let expired = try fixture.share(ProcessCards.plain, at: "2026-03-01T08:00:00Z", ttl: "1d")
        let unknown = "0b5e2f7e-9d1c-4c2a-8f3e-5a6b7c8d9e0f"
        let gateway = try fixture.gateway()
        let referer = ["-H", "Referer: https://referer-secret.example/page?who=alice"]
        var requests = 0
        for id in [live, live, other, expired, unknown] {
            _ = try CurlClient.fetch(gateway.baseURL + "/appclip?id=\(id)&utm_source=query-secret", referer)
            requests += 1
        }
        _ = try CurlClient.fetch(gateway.baseURL + "/appclip?id=\(live)", ["--head"] + referer)
        _ = try CurlClient.fetch(gateway.baseURL + "/path-secret?id=\(live)", referer)
        _ = try CurlClient.fetch(gateway.baseURL + "/appclip?id=not-\(live)", referer)
        _ = try CurlClient.fetch(gateway.baseURL + "/.well-known/apple-app-site-association?q=query-secret", referer)
        _ = try CurlClient.fetch(gateway.baseURL + "/appclip?id=\(live)", ["-X", "BREW\(live.prefix(8))"] + referer)
        requests += 5
        try gateway.waitForAccessLines(requests)
        let ended = try gateway.stop()
        #expect(ended.succeeded)
        let lines = ended.error.split(separator: "\n").map(String.init)
        let access = lines.filter { $0.hasPrefix("sharelog: http method=") }
        #expect(access.count == requests, "\(lines)")
        let shape = /sharelog: http method=(GET|HEAD|other) route=(\/appclip|-|\/apple-app-site-association) status=\d{3} bytes=\d+ us=\d+( tag=[0-9a-f]{16})?/
        for line in access { #expect(line.wholeMatch(of: shape) != nil, "\(line)") }
        let secrets = [live, other, expired, unknown].flatMap { [$0, $0.replacingOccurrences(of: "-", with: "")] }
            + ["query-secret", "referer-secret", "alice", "path-secret", "utm_source", "?", "id=", "BREW", String(live.prefix(8))]
        for line in lines {
            for secret in secrets { #expect(!line.lowercased().contains(secret.lowercased()), "\(line) holds \(secret)") }
        }
        func tag(_ line: String) -> String? { line.range(of: " tag=").map { String(line[$0.upperBound...]) } }
        let tags = access.prefix(5).map(tag)
        #expect(tags.allSatisfy { $0 != nil }, "each valid record name leaves a tag")
        #expect(tags[0] == tags[1], "the same share gives the same tag within a day")
        #expect(Set(tags.compactMap { $0 }).count == 4, "four shares, four tags")
        #expect(access[0].contains("method=GET route=/appclip status=200"))
        #expect(access[3].contains("status=410") && access[4].contains("status=404"))
        #expect(access[5].contains("method=HEAD") && access[5].contains("bytes=0"))
        #expect(access.last?.contains("method=other") == true)
        #expect(lines.last == "sharelog: http: stopped after \(requests) answers", "\(lines.last ?? "")")
    }
}
