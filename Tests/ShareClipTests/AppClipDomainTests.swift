import ShareClip
import Testing

@Suite struct AppClipDomainTests {
    @Test func theStandardDomainIsCardsExampleCom() {
        #expect(AppClipDomain.standard.name == "cards.example.com")
        #expect(AppClipLinkParser().domains == [.standard])
    }

    @Test(arguments: [
        ("cards.example.com", "cards.example.com"),
        ("Cards.Example.COM", "cards.example.com"),
        ("xn--bcher-kva.example", "xn--bcher-kva.example"),
        ("a-b.c-d.example.com", "a-b.c-d.example.com"),
        ("app.example.co.uk", "app.example.co.uk"),
        ("1password.example.com", "1password.example.com"),
    ])
    func acceptsHostNamesAndLowercasesThem(domain: String, name: String) throws {
        #expect(try AppClipDomain(domain).name == name)
    }

    @Test(arguments: [
        ("", AppClipDomainError.empty),
        ("https://cards.example.com", .hasScheme(domain: "https://cards.example.com")),
        ("https://cards.example.com/appclip", .hasScheme(domain: "https://cards.example.com/appclip")),
        ("cards.example.com/appclip", .hasPath(domain: "cards.example.com/appclip")),
        ("cards.example.com/", .hasPath(domain: "cards.example.com/")),
        ("cards.example.com?x=1", .hasPath(domain: "cards.example.com?x=1")),
        ("cards.example.com#x", .hasPath(domain: "cards.example.com#x")),
        ("cards.example.com:443", .hasPort(domain: "cards.example.com:443")),
        ("cards.example.com:", .hasPort(domain: "cards.example.com:")),
    ])
    func refusesSchemesPathsAndPorts(domain: String, error: AppClipDomainError) {
        #expect(throws: error) { try AppClipDomain(domain) }
    }

    @Test(arguments: [
        ("user@cards.example.com", "\"@\""),
        (" cards.example.com", "U+0020"),
        ("cards.example.com\n", "U+000A"),
        ("cärds.example.com", "xn--"),
        ("cards_example.com", "\"_\""),
        ("cards..example.com", "empty label"),
        (".example.com", "empty label"),
        ("cards.example.com.", "empty label"),
        ("-cards.example.com", "hyphen"),
        ("cards-.example.com", "hyphen"),
        ("localhost", "no dot"),
        ("192.168.0.1", "IP address"),
        (String(repeating: "a", count: 64) + ".example.com", "longer than 63"),
        (Array(repeating: String(repeating: "a", count: 63), count: 4).joined(separator: ".") + ".com", "at most 253"),
    ])
    func refusesImplausibleHostNamesSayingWhy(domain: String, reasonMentions: String) {
        let error = #expect(throws: AppClipDomainError.self) { try AppClipDomain(domain) }
        guard case .invalidHostname(let given, let reason) = error else {
            Issue.record("expected invalidHostname, got \(String(describing: error))")
            return
        }
        #expect(given == domain)
        #expect(reason.contains(reasonMentions), "\(reason)")
        #expect(error?.description.contains("cards.example.com") == true)
    }
}
