import Foundation
import ShareClip
import Testing

@Suite struct VCardPreviewJSONTests {
    private func json(_ preview: VCardPreview) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(preview), as: UTF8.self)
    }

    @Test func writesThePhotoSizeAndTypeButNeverItsBytes() throws {
        let preview = try VCardPreview(parsing: VCardFixtures.appleExport)
        let expected = #"{"name":"Johnny Appleseed","organization":"Apple Inc.","photo":{"byteCount":612,"mediaType":"image\/jpeg"},"title":"Orchard Engineer","warnings":[]}"#
        #expect(try json(preview) == expected)
    }

    @Test func writesEveryKeyEvenWhenFieldsAreMissing() throws {
        let preview = try VCardPreview(parsing: VCardFixtures.card(body: ["PHOTO;ENCODING=b:@@"]))
        let expected = #"{"name":null,"organization":null,"photo":null,"title":null,"warnings":["missingName","photoCorrupt"]}"#
        #expect(try json(preview) == expected)
    }

    @Test func writesAPhotoOfUnknownTypeWithANullMediaType() throws {
        let photo = VCardPhoto(mediaType: nil, bytes: Data([1, 2, 3]))
        let preview = VCardPreview(name: "A", title: nil, organization: nil, photo: photo, warnings: [])
        #expect(try json(preview).contains(#""photo":{"byteCount":3,"mediaType":null}"#))
    }

    @Test func readsBackEverythingButThePhotoBytes() throws {
        let preview = try VCardPreview(parsing: VCardFixtures.appleExport)
        let decoded = try JSONDecoder().decode(VCardPreview.self, from: JSONEncoder().encode(preview))
        #expect(decoded.name == preview.name)
        #expect(decoded.title == preview.title)
        #expect(decoded.organization == preview.organization)
        #expect(decoded.warnings == preview.warnings)
        #expect(decoded.photo?.mediaType == "image/jpeg")
        #expect(decoded.photo?.byteCount == VCardFixtures.jpegPhoto.count)
        #expect(decoded.photo?.bytes.isEmpty == true)
    }

    @Test func aPreviewWithoutAPhotoRoundTripsExactly() throws {
        let preview = try VCardPreview(parsing: VCardFixtures.card(body: ["FN:Jane Doe", "ROLE:Lead", "PHOTO:https://example.com/a.jpg"]))
        let decoded = try JSONDecoder().decode(VCardPreview.self, from: JSONEncoder().encode(preview))
        #expect(decoded == preview)
        #expect(decoded.warnings == [.photoNotEmbedded])
    }
}
