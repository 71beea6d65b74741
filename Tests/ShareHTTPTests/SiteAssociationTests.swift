import Foundation
import ShareHTTP
import Testing

/// The `apple-app-site-association` file at both paths Apple reads: the
/// clips that may claim the domain and the apps that take its links; 404
/// when the gateway was given no app id.
@Suite struct SiteAssociationTests {
    static let paths = ["/.well-known/apple-app-site-association", "/apple-app-site-association"]

    @Test(arguments: paths)
    func theFileNamesTheClipAndTheApp(path: String) throws {
        let fixture = try GatewayFixture()
        let response = try fixture.gateway().respond(to: .get(path))
        #expect(response.status.code == 200)
        #expect(response.route == .siteAssociation)
        #expect(response.header("Content-Type") == "application/json")
        #expect(response.text == """
            {"appclips":{"apps":["ABCDE12345.com.example.cards.Clip"]},\
            "applinks":{"details":[{"appIDs":["ABCDE12345.com.example.cards"],"components":[{"/":"/appclip","comment":"card links"}]}]}}

            """)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        let clips = try #require(object["appclips"] as? [String: Any])
        #expect(clips["apps"] as? [String] == [GatewayFixture.clipID])
        let links = try #require(object["applinks"] as? [String: Any])
        let details = try #require(links["details"] as? [[String: Any]])
        #expect(details.count == 1)
        #expect(details.first?["appIDs"] as? [String] == [GatewayFixture.appID])
        let components = try #require(details.first?["components"] as? [[String: String]])
        #expect(components == [["/": "/appclip", "comment": "card links"]])
    }

    @Test func bothPathsServeTheSameBytes() throws {
        let fixture = try GatewayFixture()
        let gateway = try fixture.gateway()
        let answers = Self.paths.map { gateway.respond(to: .get($0)) }
        #expect(answers[0].body == answers[1].body)
        #expect(answers[0].headers == answers[1].headers)
        #expect(gateway.respond(to: .get(Self.paths[0] + "?v=2")).body == answers[0].body)
        #expect(gateway.respond(to: GatewayRequest.get(Self.paths[1]).with(method: "HEAD")).body == answers[0].body)
    }

    @Test func severalAppsAreListedInOrder() throws {
        let fixture = try GatewayFixture()
        let gateway = try fixture.gateway {
            $0.clipAppIDs = [try! AppIdentifier("ABCDE12345.com.example.cards.Clip"), try! AppIdentifier("ZYXWV98765.org.other.Clip")]
            $0.fullAppIDs = []
        }
        let response = gateway.respond(to: .get(Self.paths[0]))
        #expect(response.text == "{\"appclips\":{\"apps\":[\"ABCDE12345.com.example.cards.Clip\",\"ZYXWV98765.org.other.Clip\"]}}\n")
    }

    @Test func onlyFullAppsMeansOnlyApplinks() throws {
        let fixture = try GatewayFixture()
        let gateway = try fixture.gateway { $0.clipAppIDs = [] }
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(gateway.respond(to: .get(Self.paths[1])).body)) as? [String: Any])
        #expect(Set(object.keys) == ["applinks"])
    }

    @Test(arguments: paths)
    func withoutAppIdsThereIsNoFile(path: String) throws {
        let fixture = try GatewayFixture()
        let gateway = try fixture.gateway { $0.clipAppIDs = []; $0.fullAppIDs = [] }
        let response = gateway.respond(to: .get(path))
        #expect(response.status.code == 404)
        #expect(response.header("Cache-Control") == "no-store")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        #expect(object["serverErrorCode"] as? String == "NOT_FOUND")
        #expect(object["appclips"] == nil)
    }

    @Test(arguments: paths)
    func theFileCannotBeWritten(path: String) throws {
        let fixture = try GatewayFixture()
        let response = try fixture.gateway().respond(to: GatewayRequest.get(path).with(method: "PUT"))
        #expect(response.status.code == 405)
        #expect(response.header("Allow") == "GET, HEAD")
    }

    /// The file's misses are not the link's: reading it never uses up a
    /// client's miss allowance.
    @Test func readingTheFileIsNotAMiss() throws {
        let fixture = try GatewayFixture()
        let gateway = try fixture.gateway { $0.clipAppIDs = []; $0.fullAppIDs = [] }
        for _ in 0..<30 { #expect(gateway.respond(to: .get(Self.paths[0])).status.code == 404) }
        #expect(gateway.respond(to: .get(link(fixture.live.recordName))).status.code == 200)
    }

    @Test(arguments: ["ABCDE12345.com.example.cards.Clip", "0123456789.a", "ABCDE12345.com.example-cards.App-Clip"])
    func anAppIdIsATeamIdAndABundleId(text: String) throws {
        let id = try AppIdentifier(text)
        #expect(id.description == text)
        #expect(id.teamID.count == 10)
        #expect("\(id.teamID).\(id.bundleID)" == text)
    }

    @Test(arguments: [
        "", "com.example.cards", "abcde12345.com.example", "ABCDE1234.com.example", "ABCDE12345.", "ABCDE12345..x", "ABCDE12345.x.",
        "ABCDE12345.com/example", "ABCDE12345.com.exa\"mple", "ABCDE12345.com example", "ABCDE12345.çom",
    ])
    func anythingElseIsRefusedSayingWhy(text: String) {
        #expect(throws: GatewayConfigurationError.self) { try AppIdentifier(text) }
        do {
            _ = try AppIdentifier(text)
        } catch {
            #expect(error.description.contains("'\(text)' is not valid"))
        }
    }
}
