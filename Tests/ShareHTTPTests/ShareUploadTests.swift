import ShareHTTP
import Testing

/// The two forms of an upload's body (docs/HTTP.md "The write API"), and
/// a clear refusal, never quoting the body, for anything else.
@Suite struct ShareUploadTests {
    static let card = Array("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Secret Person\r\nEND:VCARD\r\n".utf8)
    /// The store's default TTL: 7 days, in seconds.
    static let week = Duration.seconds(604_800)

    @Test func aVCardBodyIsTheCardByteForByteForAWeek() throws {
        for type in ["text/vcard", "Text/VCard; charset=UTF-8", "text/x-vcard", "text/vcard;charset=\"utf-8\""] {
            let upload = try ShareUpload.parse(contentType: type, body: Self.card)
            #expect(upload == ShareUpload(vCard: Self.card, ttl: Self.week), "\(type)")
        }
    }

    @Test func aJSONBodyCarriesTheCardAndItsTTLInSeconds() throws {
        let body = Array(#"{"vcard":"BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Secret Person\r\nEND:VCARD\r\n","ttl":3600}"#.utf8)
        #expect(try ShareUpload.parse(contentType: "application/json", body: body) == ShareUpload(vCard: Self.card, ttl: .seconds(3600)))
        let noTTL = Array(#"{"vcard":"BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Secret Person\r\nEND:VCARD\r\n"}"#.utf8)
        #expect(try ShareUpload.parse(contentType: "application/json; charset=utf-8", body: noTTL).ttl == Self.week)
    }

    @Test func otherMediaTypesAndCharsetsAreRefused() {
        #expect(throws: UploadRefusal.unsupportedMediaType(nil)) { try ShareUpload.parse(contentType: nil, body: Self.card) }
        #expect(throws: UploadRefusal.unsupportedMediaType("application/xml")) {
            try ShareUpload.parse(contentType: "application/xml", body: Self.card)
        }
        #expect(throws: UploadRefusal.unsupportedCharset("iso-8859-1")) {
            try ShareUpload.parse(contentType: "text/vcard; charset=ISO-8859-1", body: Self.card)
        }
    }

    @Test func aJSONBodyThatIsNotAnUploadSaysWhichFieldIsWrongAndQuotesNothing() {
        let cases: [(String, String)] = [
            (#"BEGIN:VCARD Secret Person"#, "the body is not a JSON object"),
            (#"["Secret Person"]"#, "the body is not a JSON object"),
            (#"{"vcard":"Secret Person","ttL":60}"#, #"unknown key "ttL"; an upload has "vcard" and "ttl""#),
            (#"{"ttl":60}"#, #""vcard" must be the card, as a string"#),
            (#"{"vcard":5}"#, #""vcard" must be the card, as a string"#),
            (#"{"vcard":"Secret Person","ttl":"7d"}"#, #""ttl" must be a whole number of seconds"#),
            (#"{"vcard":"Secret Person","ttl":true}"#, #""ttl" must be a whole number of seconds"#),
            (#"{"vcard":"Secret Person","ttl":1.5}"#, #""ttl" must be a whole number of seconds"#),
        ]
        for (body, reason) in cases {
            #expect(throws: UploadRefusal.malformedJSON(reason), "\(body)") {
                try ShareUpload.parse(contentType: "application/json", body: Array(body.utf8))
            }
        }
    }

    @Test func theBodyLimitIsTheVCardLimitAnd64KiBForJSON() {
        #expect(ShareUpload.bodyLimit == 1_048_576 + 65_536)
    }
}
