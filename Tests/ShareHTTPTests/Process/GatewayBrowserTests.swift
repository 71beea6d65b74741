import Foundation
import Testing
import TestSupport

/// The fallback page in Debian's headless Chromium, as a person without
/// iOS sees it: the DOM after loading (read back with Python's
/// `html.parser`) for a card with a photo, a card whose fields are markup
/// and script, and an expired share; and a screenshot at an iPhone's
/// 390×844, kept as docs/http-fallback-page.png when
/// `SHARELOG_UPDATE_SCREENSHOT=1`.
@Suite(.serialized) struct GatewayBrowserTests {
    /// Every element the page is made of; anything else came from somewhere else.
    static let pageElements: Set<String> = ["html", "head", "meta", "title", "style", "body", "main", "img", "div", "h1", "p", "a"]
    static let banner = "app-id=1234567890, app-clip-bundle-id=com.example.cards.Clip, app-clip-display=card"

    static var repository: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// The checks every page shares: its elements are the page's own, no
    /// element has an event handler, and the banner tag is in the head.
    static func expectPageShape(_ document: ParsedDocument, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let tags = Set(document.elements.map(\.tag))
        #expect(tags.isSubset(of: pageElements), "\(what): unexpected elements \(tags.subtracting(pageElements))", sourceLocation: sourceLocation)
        #expect(document.all("script").isEmpty, "\(what)", sourceLocation: sourceLocation)
        #expect(document.eventHandlers.isEmpty, "\(what): \(document.eventHandlers)", sourceLocation: sourceLocation)
        let banners = document.all("meta").filter { $0.attributes["name"] == "apple-itunes-app" }
        #expect(banners.map { $0.attributes["content"] ?? "" } == [banner], "\(what)", sourceLocation: sourceLocation)
        #expect(document.all("body").first?.attributes.isEmpty == true, "\(what): the body was not touched", sourceLocation: sourceLocation)
    }

    @Test func aCardWithAPhotoShowsItsNameTitleOrganizationAndPhoto() throws {
        let fixture = try ProcessStore()
        let portrait = try ProcessCards.portraitPNG()
        let grace = try fixture.share(ProcessCards.card(
            name: "Grace Hopper", family: "Hopper", given: "Grace", title: "Rear Admiral", organization: "United States Navy", png: portrait))
        let adaeze = try fixture.share(try ProcessCards.withPhotoFixture)
        let gateway = try fixture.gateway()
        defer { _ = try? gateway.stop() }
        let browser = try ChromiumBrowser(home: fixture.directory.appending("chromium"))

        let document = try ParsedDocument(browser.dumpDOM(gateway.baseURL + "/appclip?id=" + grace))
        Self.expectPageShape(document, "Grace Hopper's page")
        #expect(document.text(of: "title") == "Grace Hopper")
        #expect(document.text(of: "h1") == "Grace Hopper")
        #expect(document.text(of: "p", class: "title") == "Rear Admiral")
        #expect(document.text(of: "p", class: "org") == "United States Navy")
        let images = document.all("img")
        #expect(images.map { $0.attributes["src"] ?? "" } == ["data:image/png;base64," + Data(portrait).base64EncodedString()], "the photo, embedded whole")
        let links = document.all("a")
        #expect(links.count == 1)
        #expect(links.first?.text == "Add to Contacts")
        #expect(links.first?.attributes["href"] == "/appclip?id=\(grace)&format=vcf")
        #expect(document.text(of: "p", class: "note")?.contains("9 Mar 2026, 09:00 UTC") == true, "the page says until when it is shared")

        let fixtureDocument = try ParsedDocument(browser.dumpDOM(gateway.baseURL + "/appclip?id=" + adaeze))
        Self.expectPageShape(fixtureDocument, "Adaeze Okafor's page")
        #expect(fixtureDocument.text(of: "h1") == "Adaeze Okafor")
        #expect(fixtureDocument.text(of: "p", class: "title") == "Harbour Pilot")
        #expect(fixtureDocument.text(of: "p", class: "org") == "Lagos Lighthouse Co.")
        #expect(fixtureDocument.all("img").map { $0.attributes["src"] ?? "" } == ["data:image/jpeg;base64," + Data(try ProcessCards.fixturePhoto).base64EncodedString()])

        let update = ProcessInfo.processInfo.environment["SHARELOG_UPDATE_SCREENSHOT"] == "1"
        let file = update ? Self.repository.appendingPathComponent("docs/http-fallback-page.png").path : fixture.directory.appending("page.png")
        try browser.screenshot(gateway.baseURL + "/appclip?id=" + grace, to: file)
        let png = try Array(Data(contentsOf: URL(fileURLWithPath: file)))
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), "a PNG")
        #expect(png.count > 33 && Array(png[12..<16]) == Array("IHDR".utf8))
        if png.count > 24 {
            let width = png[16..<20].reduce(0) { $0 << 8 | Int($1) }, height = png[20..<24].reduce(0) { $0 << 8 | Int($1) }
            #expect(width == 390 && height == 844, "an iPhone's screen: \(width)×\(height)")
        }
    }

    @Test func markupAndScriptInACardStayText() throws {
        let fixture = try ProcessStore()
        let id = try fixture.share(ProcessCards.hostile)
        let gateway = try fixture.gateway()
        defer { _ = try? gateway.stop() }
        let browser = try ChromiumBrowser(home: fixture.directory.appending("chromium"))
        let html = try browser.dumpDOM(gateway.baseURL + "/appclip?id=" + id)
        let document = try ParsedDocument(html)
        Self.expectPageShape(document, "the hostile card's page")
        let name = #"<script>document.title='pwned'</script><img src=x onerror="document.body.id='pwned'">Mallory"#
        #expect(document.text(of: "title") == name, "the name is the title's text, and no script changed it")
        #expect(document.text(of: "h1") == name, "the name is shown as text")
        #expect(document.text(of: "p", class: "title") == "</title><script>alert(1)</script><svg onload=alert(2)>")
        #expect(document.text(of: "p", class: "org") == #""><b id=injected-org>Acme</b> & Sons"#)
        #expect(document.all("img").isEmpty, "no image: the card has no photo, and the name's <img> is text")
        #expect(document.all("b").isEmpty && document.all("svg").isEmpty)
        #expect(!document.elements.contains { $0.attributes["id"] != nil }, "no element has an id from the card")
        #expect(html.contains("&lt;script&gt;document.title='pwned'&lt;/script&gt;"), "the serialized DOM holds the markup as escaped text")
    }

    @Test func anExpiredSharesPageSaysItExpired() throws {
        let fixture = try ProcessStore()
        let id = try fixture.share(ProcessCards.plain, at: "2026-03-01T08:00:00Z", ttl: "1d")
        let gateway = try fixture.gateway()
        defer { _ = try? gateway.stop() }
        let browser = try ChromiumBrowser(home: fixture.directory.appending("chromium"))
        let document = try ParsedDocument(browser.dumpDOM(gateway.baseURL + "/appclip?id=" + id))
        Self.expectPageShape(document, "the expired page")
        #expect(document.text(of: "h1") == "This card has expired")
        let note = document.text(of: "p", class: "note") ?? ""
        #expect(note.contains("ended on 2 Mar 2026, 08:00 UTC"), "\(note)")
        #expect(document.all("img").isEmpty && document.all("a").isEmpty, "no photo, no download")
        #expect(!document.elements.contains { $0.text.contains("Lovelace") || $0.text.contains("Analytical") }, "nothing of the card")
    }
}
