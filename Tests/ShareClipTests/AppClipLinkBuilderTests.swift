import Foundation
import ShareClip
import Testing

@Suite struct AppClipLinkBuilderTests {
    @Test func writesTheCanonicalLinkWithALowercaseRecordName() throws {
        let recordName = try #require(UUID(uuidString: "6BA7B810-9DAD-11D1-80B4-00C04FD430C8"))
        let link = AppClipLinkBuilder().link(for: .share(recordName: recordName))
        #expect(link == "https://cards.example.com/appclip?id=6ba7b810-9dad-11d1-80b4-00c04fd430c8")
    }

    @Test func writesLinksForTheConfiguredDomainInLowercase() throws {
        let builder = AppClipLinkBuilder(domain: try AppClipDomain("Share.Example.ORG"))
        let recordName = try #require(UUID(uuidString: "F47AC10B-58CC-4372-A567-0E02B2C3D479"))
        #expect(builder.link(for: .share(recordName: recordName))
            == "https://share.example.org/appclip?id=f47ac10b-58cc-4372-a567-0e02b2c3d479")
    }

    @Test func everyLinkItWritesParsesBackToTheSameCard() throws {
        let domain = try AppClipDomain("cards.example.com")
        let builder = AppClipLinkBuilder(domain: domain)
        let parser = AppClipLinkParser(domains: [domain])
        for _ in 0..<200 {
            let experience = AppClipExperience.share(recordName: UUID())
            #expect(try parser.parse(builder.link(for: experience)) == experience)
            #expect(try parser.parse(builder.url(for: experience)) == experience)
        }
    }

    @Test func theURLIsTheCanonicalLinkReadByFoundation() throws {
        let recordName = try #require(UUID(uuidString: "123E4567-E89B-12D3-A456-426614174000"))
        let url = AppClipLinkBuilder(domain: try AppClipDomain("Share.Example.ORG")).url(for: .share(recordName: recordName))
        #expect(url.absoluteString == "https://share.example.org/appclip?id=123e4567-e89b-12d3-a456-426614174000")
        let parts = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
        #expect(parts.scheme == "https")
        #expect(parts.host == "share.example.org")
        #expect(parts.port == nil)
        #expect(parts.path == "/appclip")
        #expect(parts.queryItems == [URLQueryItem(name: "id", value: "123e4567-e89b-12d3-a456-426614174000")])
        #expect(parts.fragment == nil)
    }
}
