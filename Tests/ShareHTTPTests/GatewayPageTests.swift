import Foundation
import ShareHTTP
import ShareLog
import Testing
import TestSupport
import TestTraits

/// The fallback page a person without iOS sees: the card's fields, escaped;
/// no script and no photo a browser could run; the Smart App Banner; a
/// policy that allows the inline style and nothing else.
@Suite struct GatewayPageTests {
    /// The style hash of a policy that is exactly the expected one but for
    /// the hash; nil for any other policy.
    private static func styleHash(in policy: String) -> String? {
        let head = "default-src 'none'; img-src data:; style-src 'sha256-"
        let tail = "'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        guard policy.hasPrefix(head), policy.hasSuffix(tail), policy.count == head.count + 44 + tail.count else { return nil }
        let hash = String(policy.dropFirst(head.count).dropLast(tail.count))
        let alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
        return hash.last == "=" && hash.dropLast().allSatisfy(alphabet.contains) ? hash : nil
    }

    private func page(of card: [UInt8], _ configure: (inout GatewayConfiguration) -> Void = { _ in }) throws -> (GatewayResponse, CreatedShare) {
        let fixture = try GatewayFixture()
        let share = try fixture.add(card)
        return (try fixture.gateway(configure).respond(to: .get(link(share.recordName))), share)
    }

    @Test func thePageShowsTheCardAndLinksItsDownload() throws {
        let fixture = try GatewayFixture()
        let response = try fixture.gateway().respond(to: .get(link(fixture.live.recordName)))
        let html = response.text
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.contains("<title>Person Sample7</title>"))
        #expect(html.contains("<h1>Person Sample7</h1>"))
        #expect(html.contains("<p class=\"title\">Engineer 7</p>"))
        #expect(html.contains("<p class=\"org\">Example Corp 7</p>"))
        #expect(html.contains("<div class=\"initials\" aria-hidden=\"true\">PS</div>"))
        #expect(html.contains("<a class=\"save\" href=\"/appclip?id=\(fixture.live.recordName)&amp;format=vcf\">Add to Contacts</a>"))
        #expect(html.contains("Shared until 15 Jan 2027, 08:02 UTC."))
        #expect(activeContent(in: html).isEmpty)
    }

    @Test func theDownloadLinkGivesTheCard() throws {
        let fixture = try GatewayFixture()
        let response = try fixture.gateway().respond(to: .get(link(fixture.live.recordName) + "&format=vcf", accept: Accepting.page))
        #expect(response.status.code == 200)
        #expect(response.header("Content-Type") == "text/vcard; charset=utf-8")
        #expect(response.body == fixture.liveCard)
    }

    @Test func hostileFieldsAreShownAsTextAndNeverRun() throws {
        let (response, _) = try page(of: HostileCard.card)
        let html = response.text
        #expect(response.status.code == 200)
        #expect(!html.lowercased().contains("<script"))
        #expect(!html.contains("<img src=x"))
        #expect(!html.contains("<b onmouseover"))
        #expect(activeContent(in: html).isEmpty, "\(activeContent(in: html))")
        #expect(html.contains("<title>&lt;script&gt;alert(1)&lt;/script&gt;</title>"))
        #expect(html.contains("<h1>&lt;script&gt;alert(1)&lt;/script&gt;</h1>"))
        #expect(html.contains("<p class=\"title\">&quot;&gt;&lt;img src=x onerror=alert(2)&gt;</p>"))
        #expect(html.contains("<p class=\"org\">O&#39;Hare &quot;Quotes&quot; &amp; &lt;b onmouseover=&#39;alert(3)&#39;&gt;</p>"))
    }

    @Test func controlCharactersFromACardDoNotReachThePage() throws {
        let card = Array("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Bell\u{7}Null\u{1B}[31mRed\r\nEND:VCARD\r\n".utf8)
        let (response, _) = try page(of: card)
        #expect(response.status.code == 200)
        #expect(!response.body.contains(0x07))
        #expect(!response.body.contains(0x1B))
    }

    @Test func anSVGPhotoIsNotEmbedded() throws {
        let (response, _) = try page(of: HostileCard.svgPhotoCard)
        let html = response.text
        #expect(response.status.code == 200)
        #expect(!html.contains("<img"))
        #expect(!html.contains("svg"))
        #expect(!html.contains("PHN2Zy"), "the SVG's base64 must not be on the page")
        #expect(html.contains("<div class=\"initials\" aria-hidden=\"true\">VP</div>"))
        #expect(activeContent(in: html).isEmpty)
    }

    @Test func aJPEGPhotoIsEmbeddedAsADataURI() throws {
        let (response, _) = try page(of: HostileCard.jpegPhotoCard)
        #expect(response.text.contains("<img class=\"photo\" alt=\"\" src=\"data:image/jpeg;base64,/9j/4AAQSkZJRgD/2Q==\">"))
        #expect(!response.text.contains("class=\"initials\""))
    }

    /// The bundle id goes in without the team prefix.
    @Test func theSmartAppBannerNamesTheAppAndTheClip() throws {
        let fixture = try GatewayFixture()
        let html = try fixture.gateway().respond(to: .get(link(fixture.live.recordName))).text
        #expect(html.contains(
            "<meta name=\"apple-itunes-app\" content=\"app-id=1234567890, app-clip-bundle-id=com.example.cards.Clip, app-clip-display=card\">"))
        #expect(!html.contains("ABCDE12345"))
    }

    @Test func noticePagesCarryTheBannerToo() throws {
        let fixture = try GatewayFixture()
        let html = try fixture.gateway().respond(to: .get(link(fixture.expired.recordName))).text
        #expect(html.contains("<meta name=\"apple-itunes-app\" content=\"app-id=1234567890, app-clip-bundle-id=com.example.cards.Clip"))
    }

    @Test func withoutAClipTheBannerNamesTheAppAlone() throws {
        let (response, _) = try page(of: HostileCard.jpegPhotoCard) { $0.clipAppIDs = [] }
        #expect(response.text.contains("<meta name=\"apple-itunes-app\" content=\"app-id=1234567890\">"))
    }

    @Test func withoutAnAppStoreIdThereIsNoBanner() throws {
        let (response, _) = try page(of: HostileCard.jpegPhotoCard) { $0.appStoreID = nil }
        #expect(response.status.code == 200)
        #expect(!response.text.contains("apple-itunes-app"))
    }

    @Test(arguments: ["1234567890", "1", "123456789012"])
    func appStoreIdsAreDigits(id: String) {
        #expect(GatewayConfiguration.isAppStoreID(id))
    }

    @Test(arguments: ["", "id1234567890", "1234567890123", "12345\">", "１２３"])
    func otherAppStoreIdsAreRefused(id: String) {
        #expect(!GatewayConfiguration.isAppStoreID(id))
    }

    /// The policy allows the page's one inline style by its SHA-256, which
    /// the test computes with the openssl command, and nothing else.
    @Test(.hangDeadline)
    func thePolicyAllowsExactlyTheInlineStyle() throws {
        let fixture = try GatewayFixture()
        let response = try fixture.gateway().respond(to: .get(link(fixture.live.recordName)))
        let policy = try #require(response.header("Content-Security-Policy"))
        let hash = try #require(Self.styleHash(in: policy), "\(policy)")
        let html = response.text
        let styleStart = try #require(html.range(of: "<style>"))
        let styleEnd = try #require(html.range(of: "</style>"))
        let css = Array(html[styleStart.upperBound..<styleEnd.lowerBound].utf8)
        let outcome = try Subprocess.run("/usr/bin/openssl", ["dgst", "-sha256", "-binary"], input: css, timeout: .seconds(30))
        #expect(outcome.status == 0)
        #expect(outcome.output.count == 32)
        #expect(hash == Data(outcome.output).base64EncodedString())
        #expect(html.components(separatedBy: "<style>").count == 2, "one inline style only")
        #expect(!html.contains(" style=\""), "no style attributes: the hash does not allow them")
    }

    @Test func everyPageCarriesThePolicy() throws {
        let fixture = try GatewayFixture()
        let gateway = try fixture.gateway()
        for target in [link(fixture.live.recordName), link(fixture.revoked.recordName), link(GatewayFixture.unknown), "/appclip?id=x", "/"] {
            let response = gateway.respond(to: .get(target))
            #expect(response.header("Content-Type") == "text/html; charset=utf-8")
            let policy = try #require(response.header("Content-Security-Policy"), "\(target)")
            #expect(Self.styleHash(in: policy) != nil, "\(policy)")
        }
    }

    @Test func aDamagedLinkIsQuotedEscaped() throws {
        let fixture = try GatewayFixture()
        let response = try fixture.gateway().respond(to: .get("/appclip?id='onmouseover='alert(1)"))
        #expect(response.status.code == 400)
        #expect(activeContent(in: response.text).isEmpty)
        #expect(response.text.contains("&#39;onmouseover=&#39;alert(1)"))
    }

    @Test func thePageLoadsNothingFromElsewhere() throws {
        let (response, _) = try page(of: HostileCard.jpegPhotoCard)
        let html = response.text
        for pattern in ["src=\"http", "href=\"http", "src=\"//", "href=\"//", "<link", "<iframe", "<form", "<base"] {
            #expect(!html.contains(pattern), "\(pattern)")
        }
    }
}
