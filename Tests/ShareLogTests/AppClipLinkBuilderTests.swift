import Foundation
import ShareLog
import Testing

@Suite struct AppClipLinkBuilderTests {
    @Test func writesTheCanonicalLinkWithALowercaseRecordName() throws {
        let recordName = try #require(UUID(uuidString: "6BA7B810-9DAD-11D1-80B4-00C04FD430C8"))
        let link = AppClipLinkBuilder().link(for: .share(recordName: recordName))
        #expect(link == "https://cards.example.com/appclip?id=6ba7b810-9dad-11d1-80b4-00c04fd430c8")
    }

    @Test func writesLinksForTheConfiguredDomainInLowercase() throws {
        let builder = AppClipLinkBuilder(domain: try AppClipDomain("Share.Example.ORG"))
        let recordName = UUID()
        #expect(builder.link(for: .share(recordName: recordName))
            == "https://share.example.org/appclip?id=\(recordName.uuidString.lowercased())")
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

    @Test func theURLHasTheSameTextAsTheLink() {
        let experience = AppClipExperience.share(recordName: UUID())
        let builder = AppClipLinkBuilder()
        #expect(builder.url(for: experience).absoluteString == builder.link(for: experience))
    }
}
