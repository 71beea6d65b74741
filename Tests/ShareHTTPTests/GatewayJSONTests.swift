import Foundation
import SampleCards
import ShareHTTP
import ShareLog
import Testing

/// The JSON form, shaped like CloudKit Web Services' `records/lookup`
/// answer, read back with `JSONSerialization` as a client would.
@Suite struct GatewayJSONTests {
    private func json(_ response: GatewayResponse) throws -> [String: Any] {
        #expect(response.header("Content-Type") == "application/json; charset=utf-8")
        return try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any], "\(response.text)")
    }

    private func onlyRecord(_ object: [String: Any]) throws -> [String: Any] {
        #expect(Set(object.keys) == ["records"])
        let records = try #require(object["records"] as? [[String: Any]])
        #expect(records.count == 1)
        return try #require(records.first)
    }

    @Test func aLiveShareIsOneCardRecord() throws {
        let fixture = try GatewayFixture()
        let response = try fixture.gateway().respond(to: .get(link(fixture.live.recordName), accept: Accepting.json))
        #expect(response.status.code == 200)
        let record = try onlyRecord(try json(response))
        #expect(Set(record.keys) == ["recordName", "recordType", "fields"])
        #expect(record["recordName"] as? String == fixture.live.recordName.uuid.uuidString.lowercased())
        #expect(record["recordType"] as? String == "Card")
        let fields = try #require(record["fields"] as? [String: [String: Any]])
        #expect(Set(fields.keys) == ["vcard", "createdAt", "expiresAt"])
        #expect(fields["vcard"]?["type"] as? String == "STRING")
        let card = try #require(fields["vcard"]?["value"] as? String)
        #expect(Array(card.utf8) == fixture.liveCard)
        #expect(fields["createdAt"]?["type"] as? String == "TIMESTAMP")
        #expect((fields["createdAt"]?["value"] as? NSNumber)?.int64Value == 1_800_000_000_000)
        #expect(fields["expiresAt"]?["type"] as? String == "TIMESTAMP")
        #expect((fields["expiresAt"]?["value"] as? NSNumber)?.int64Value == 1_800_000_120_000)
    }

    /// Quotes, backslashes, tabs, non-ASCII and markup survive byte for
    /// byte, and the JSON text itself holds no raw `<`, `>` or `&`.
    @Test func anAwkwardCardSurvivesByteForByteAndTheJSONIsInert() throws {
        let card = Array("""
            BEGIN:VCARD\r
            VERSION:4.0\r
            FN:Zoë "Z" \\\\ Ünal \u{1F600}\r
            NOTE:tab\there\\, </script><script>alert(1)</script> & \u{2028}\r
            TITLE:\(HostileCard.title)\r
            END:VCARD\r

            """.utf8)
        let fixture = try GatewayFixture()
        let share = try fixture.add(card)
        let response = try fixture.gateway().respond(to: .get(link(share.recordName), accept: Accepting.json))
        #expect(response.status.code == 200)
        #expect(!response.body.contains(UInt8(ascii: "<")))
        #expect(!response.body.contains(UInt8(ascii: ">")))
        #expect(!response.body.contains(UInt8(ascii: "&")))
        let record = try onlyRecord(try json(response))
        let fields = try #require(record["fields"] as? [String: [String: Any]])
        let value = try #require(fields["vcard"]?["value"] as? String)
        #expect(Array(value.utf8) == card)
    }

    @Test func aCardWithAPhotoIsWholeInTheRecord() throws {
        let fixture = try GatewayFixture()
        let card = SampleCard.make(index: 5, photoBytes: 3000)
        let share = try fixture.add(card)
        let response = try fixture.gateway().respond(to: .get(link(share.recordName), accept: Accepting.json))
        let fields = try #require(try onlyRecord(try json(response))["fields"] as? [String: [String: Any]])
        #expect((fields["vcard"]?["value"] as? String).map { Array($0.utf8) } == card)
    }

    @Test(arguments: [
        (true, "ttl", 1_799_996_460_000, "This card was shared for a limited time, which ended on 15 Jan 2027, 07:01 UTC."),
        (false, "revoked", 1_799_999_100_000, "The person who shared this card withdrew it on 15 Jan 2027, 07:45 UTC."),
    ])
    func anEndedShareIsAnExpiredErrorEntrySayingWhenAndWhy(ttl: Bool, reason: String, at: Int64, sentence: String) throws {
        let fixture = try GatewayFixture()
        let name = ttl ? fixture.expired.recordName : fixture.revoked.recordName
        let response = try fixture.gateway().respond(to: .get(link(name), accept: Accepting.json))
        #expect(response.status.code == 410)
        let record = try onlyRecord(try json(response))
        #expect(Set(record.keys) == ["recordName", "serverErrorCode", "reason", "expiredAt", "expiryReason"])
        #expect(record["recordName"] as? String == name.description)
        #expect(record["serverErrorCode"] as? String == "EXPIRED")
        #expect(record["reason"] as? String == sentence)
        #expect((record["expiredAt"] as? NSNumber)?.int64Value == at)
        #expect(record["expiryReason"] as? String == reason)
        #expect(!response.text.contains("VCARD"))
    }

    @Test func anUnknownIdIsANotFoundErrorEntry() throws {
        let fixture = try GatewayFixture()
        let response = try fixture.gateway().respond(to: .get(link(GatewayFixture.unknown), accept: Accepting.json))
        #expect(response.status.code == 404)
        let record = try onlyRecord(try json(response))
        #expect(Set(record.keys) == ["recordName", "serverErrorCode", "reason"])
        #expect(record["recordName"] as? String == "0badc0de-1111-4222-8333-444444444444")
        #expect(record["serverErrorCode"] as? String == "NOT_FOUND")
        #expect(record["reason"] as? String == "There is no card at this link. Check that the whole link was copied.")
    }

    @Test(arguments: ["/appclip?id=nope", "/appclip", "/appclip?id=0badc0de-1111-4222-8333-444444444444&id=x"])
    func aDamagedLinkIsATopLevelError(target: String) throws {
        let fixture = try GatewayFixture()
        let response = try fixture.gateway().respond(to: .get(target, accept: Accepting.json))
        #expect(response.status.code == 400)
        let object = try json(response)
        #expect(Set(object.keys) == ["serverErrorCode", "reason"])
        #expect(object["serverErrorCode"] as? String == "BAD_REQUEST")
        #expect((object["reason"] as? String)?.hasPrefix("This card link is damaged: ") == true)
    }

    @Test func aThrottledClientGetsAThrottledError() throws {
        let fixture = try GatewayFixture()
        let gateway = try fixture.gateway()
        for _ in 0..<20 { _ = gateway.respond(to: .get(link(GatewayFixture.unknown), accept: Accepting.json)) }
        let response = gateway.respond(to: .get(link(fixture.live.recordName), accept: Accepting.json))
        #expect(response.status.code == 429)
        let object = try json(response)
        #expect(object["serverErrorCode"] as? String == "THROTTLED")
        #expect(object["reason"] as? String == "Try again in 20 seconds.")
    }
}
