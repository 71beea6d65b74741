import Foundation
import ShareClip
import Testing

@Suite struct AppClipLinkParserTests {
    static let recordName = UUID(uuidString: "6BA7B810-9DAD-11D1-80B4-00C04FD430C8")!
    static let lower = "6ba7b810-9dad-11d1-80b4-00c04fd430c8"
    static let upper = "6BA7B810-9DAD-11D1-80B4-00C04FD430C8"
    let parser = AppClipLinkParser()

    @Test func opensTheSharedCardFromTheCanonicalLink() throws {
        let experience = try parser.parse("https://cards.example.com/appclip?id=\(Self.lower)")
        #expect(experience == .share(recordName: Self.recordName))
    }

    @Test func opensTheSharedCardFromAFoundationURL() throws {
        let url = try #require(URL(string: "https://cards.example.com/appclip?id=\(Self.lower)"))
        #expect(try parser.parse(url) == .share(recordName: Self.recordName))
    }

    @Test func opensARelativeURLResolvedAgainstTheDomain() throws {
        let base = try #require(URL(string: "https://cards.example.com/"))
        let url = try #require(URL(string: "appclip?id=\(Self.lower)", relativeTo: base))
        #expect(try parser.parse(url) == .share(recordName: Self.recordName))
    }

    @Test(arguments: [
        lower,
        upper,
        "6ba7B810-9DAD-11d1-80b4-00C04fd430c8",
    ])
    func acceptsTheRecordNameInAnyLetterCase(id: String) throws {
        #expect(try parser.parse("https://cards.example.com/appclip?id=\(id)") == .share(recordName: Self.recordName))
    }

    @Test(arguments: [
        // Scheme and host letter case do not matter (RFC 3986, DNS).
        "HTTPS://cards.example.com/appclip?id=\(lower)",
        "https://Cards.Example.COM/appclip?id=\(lower)",
        // :443 is the https default port.
        "https://cards.example.com:443/appclip?id=\(lower)",
        // One trailing slash.
        "https://cards.example.com/appclip/?id=\(lower)",
        // Extra query items, before, after, or empty.
        "https://cards.example.com/appclip?utm_source=qr&id=\(lower)",
        "https://cards.example.com/appclip?id=\(lower)&utm_source=qr&utm_medium=print",
        "https://cards.example.com/appclip?&id=\(lower)&",
        "https://cards.example.com/appclip?ID=ignored&id=\(lower)",
        "https://cards.example.com/appclip?next=%2Fhome%3Fx%3D1&id=\(lower)",
        // Percent-encoded id value (hyphens, every character, lowercase hex) and name.
        "https://cards.example.com/appclip?id=6ba7b810%2D9dad%2D11d1%2D80b4%2D00c04fd430c8",
        "https://cards.example.com/appclip?id=%36%62%61%37%62%38%31%30%2d%39%64%61%64%2d%31%31%64%31%2d%38%30%62%34%2d%30%30%63%30%34%66%64%34%33%30%63%38",
        "https://cards.example.com/appclip?%69%64=\(lower)",
    ])
    func acceptsEquivalentSpellingsOfTheLink(link: String) throws {
        #expect(try parser.parse(link) == .share(recordName: Self.recordName))
    }

    @Test(arguments: [
        ("https://evil.com/appclip?id=\(lower)", "evil.com"),
        ("https://example.com/appclip?id=\(lower)", "example.com"),
        ("https://evil-example.com/appclip?id=\(lower)", "evil-example.com"),
        ("https://evilcards.example.com/appclip?id=\(lower)", "evilcards.example.com"),
        ("https://cards-example.com/appclip?id=\(lower)", "cards-example.com"),
        ("https://cards.example.com.evil.net/appclip?id=\(lower)", "cards.example.com.evil.net"),
        ("https://sub.cards.example.com/appclip?id=\(lower)", "sub.cards.example.com"),
        ("https://cards.example.co/appclip?id=\(lower)", "cards.example.co"),
        ("https://cards.example.com./appclip?id=\(lower)", "cards.example.com."),
        ("https://cards%2Eexample.com/appclip?id=\(lower)", "cards%2Eexample.com"),
        ("https://cards.example.com%00.evil.net/appclip?id=\(lower)", "cards.example.com%00.evil.net"),
        ("https://[::1]/appclip?id=\(lower)", "[::1]"),
        ("https:///appclip?id=\(lower)", ""),
    ])
    func refusesLookAlikeAndOtherHosts(link: String, host: String) {
        #expect(throws: AppClipLinkError.unknownHost(host: host)) { try parser.parse(link) }
    }

    @Test(arguments: [
        ("http://cards.example.com/appclip?id=\(lower)", AppClipLinkError.notHTTPS(scheme: "http")),
        ("HTTP://cards.example.com/appclip?id=\(lower)", .notHTTPS(scheme: "HTTP")),
        ("ftp://cards.example.com/appclip?id=\(lower)", .notHTTPS(scheme: "ftp")),
        ("appclip:cards.example.com/appclip?id=\(lower)", .notHTTPS(scheme: "appclip")),
        ("https://user@cards.example.com/appclip?id=\(lower)", .userInfoPresent(userInfo: "user")),
        ("https://user:secret@cards.example.com/appclip?id=\(lower)", .userInfoPresent(userInfo: "user:secret")),
        ("https://cards.example.com@evil.net/appclip?id=\(lower)", .userInfoPresent(userInfo: "cards.example.com")),
        ("https://cards.example.com:8443/appclip?id=\(lower)", .portPresent(port: "8443")),
        ("https://cards.example.com:80/appclip?id=\(lower)", .portPresent(port: "80")),
        ("https://cards.example.com:0443/appclip?id=\(lower)", .portPresent(port: "0443")),
        ("https://cards.example.com:/appclip?id=\(lower)", .portPresent(port: "")),
        ("https://cards.example.com/share?id=\(lower)", .unknownPath(path: "/share")),
        ("https://cards.example.com/?id=\(lower)", .unknownPath(path: "/")),
        ("https://cards.example.com?id=\(lower)", .unknownPath(path: "")),
        ("https://cards.example.com/AppClip?id=\(lower)", .unknownPath(path: "/AppClip")),
        ("https://cards.example.com/appclip//?id=\(lower)", .unknownPath(path: "/appclip//")),
        ("https://cards.example.com/appclip/event?id=\(lower)", .unknownPath(path: "/appclip/event")),
        ("https://cards.example.com/app%63lip?id=\(lower)", .unknownPath(path: "/app%63lip")),
        ("https://cards.example.com/appclipx?id=\(lower)", .unknownPath(path: "/appclipx")),
        ("https://cards.example.com/appclip?id=\(lower)#top", .fragmentPresent(fragment: "top")),
        ("https://cards.example.com/appclip?id=\(lower)#", .fragmentPresent(fragment: "")),
        ("https://cards.example.com/appclip#?id=\(lower)", .fragmentPresent(fragment: "?id=\(lower)")),
        ("https://cards.example.com/appclip", .missingID),
        ("https://cards.example.com/appclip?", .missingID),
        ("https://cards.example.com/appclip?ID=\(lower)", .missingID),
        ("https://cards.example.com/appclip?Id=\(lower)", .missingID),
        ("https://cards.example.com/appclip?identifier=\(lower)", .missingID),
        ("https://cards.example.com/appclip?record=\(lower)", .missingID),
        ("https://cards.example.com/appclip?id=a&id=b", .duplicateID(values: ["a", "b"])),
        ("https://cards.example.com/appclip?id=\(lower)&id=\(lower)", .duplicateID(values: [lower, lower])),
        ("https://cards.example.com/appclip?id=\(lower)&%69d=\(upper)", .duplicateID(values: [lower, upper])),
        ("https://cards.example.com/appclip?id=", .malformedID(value: "")),
        ("https://cards.example.com/appclip?id", .malformedID(value: "")),
        ("https://cards.example.com/appclip?id=not-a-uuid", .malformedID(value: "not-a-uuid")),
        ("https://cards.example.com/appclip?id=6ba7b8109dad11d180b400c04fd430c8", .malformedID(value: "6ba7b8109dad11d180b400c04fd430c8")),
        ("https://cards.example.com/appclip?id=%7B\(lower)%7D", .malformedID(value: "%7B\(lower)%7D")),
        ("https://cards.example.com/appclip?id=urn:uuid:\(lower)", .malformedID(value: "urn:uuid:\(lower)")),
        ("https://cards.example.com/appclip?id=\(lower)0", .malformedID(value: "\(lower)0")),
        ("https://cards.example.com/appclip?id=6ba7b810-9dad-11d1-80b4-00c04fd430cg", .malformedID(value: "6ba7b810-9dad-11d1-80b4-00c04fd430cg")),
        ("https://cards.example.com/appclip?id=6ba7b810+9dad-11d1-80b4-00c04fd430c8", .malformedID(value: "6ba7b810+9dad-11d1-80b4-00c04fd430c8")),
        ("https://cards.example.com/appclip?id=%20\(lower)", .malformedID(value: "%20\(lower)")),
    ])
    func refusesLinksThatAreNotCanonicalCardLinks(link: String, error: AppClipLinkError) {
        #expect(throws: error) { try parser.parse(link) }
    }

    @Test(arguments: [
        "",
        " ",
        "not a link",
        "cards.example.com/appclip?id=\(lower)",
        "//cards.example.com/appclip?id=\(lower)",
        "://cards.example.com/appclip?id=\(lower)",
        "1https://cards.example.com/appclip?id=\(lower)",
        "https:cards.example.com/appclip?id=\(lower)",
        "https:/cards.example.com/appclip?id=\(lower)",
        " https://cards.example.com/appclip?id=\(lower)",
        "https://cards.example.com/appclip?id=\(lower) ",
        "https://cards.example.com/appclip?id=\(lower)\n",
        "https://cards.example.com/app clip?id=\(lower)",
        "https://cärds.example.com/appclip?id=\(lower)",
        "https://cards.example.com/appclip?id=%ZZ",
        "https://cards.example.com/appclip?id=\(lower)%",
        "https://cards.example.com/appclip?id=\(lower)%4",
        "https://cards.example.com/appclip?id=<\(lower)>",
    ])
    func refusesTextThatIsNotALink(text: String) {
        let error = #expect(throws: AppClipLinkError.self) { try parser.parse(text) }
        guard case .notAURL = error else {
            Issue.record("expected notAURL, got \(String(describing: error))")
            return
        }
    }

    @Test func pointsAtTheInvisibleCharacterThatSpoilsAPastedLink() {
        let error = #expect(throws: AppClipLinkError.self) {
            try parser.parse("https://cards.example.com/appclip?id=\(Self.lower)\n")
        }
        #expect(error?.description.contains("U+000A") == true)
        #expect(error?.description.contains("position 74") == true)
    }

    @Test func acceptsOnlyTheConfiguredDomains() throws {
        let domains: Set = [try AppClipDomain("share.example.org"), try AppClipDomain("Cards.Example.NET")]
        let parser = AppClipLinkParser(domains: domains)
        let experience = AppClipExperience.share(recordName: Self.recordName)
        #expect(try parser.parse("https://share.example.org/appclip?id=\(Self.lower)") == experience)
        #expect(try parser.parse("https://cards.example.net/appclip?id=\(Self.lower)") == experience)
        #expect(throws: AppClipLinkError.unknownHost(host: "cards.example.com")) {
            try parser.parse("https://cards.example.com/appclip?id=\(Self.lower)")
        }
    }

    @Test func refusesEveryLinkWhenNoDomainIsConfigured() {
        let parser = AppClipLinkParser(domains: [])
        #expect(throws: AppClipLinkError.unknownHost(host: "cards.example.com")) {
            try parser.parse("https://cards.example.com/appclip?id=\(Self.lower)")
        }
    }
}
