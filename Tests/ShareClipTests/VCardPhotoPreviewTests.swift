import Foundation
import ShareClip
import Testing

@Suite struct VCardPhotoPreviewTests {
    static let base64 = VCardFixtures.jpegPhoto.base64EncodedString()

    @Test(arguments: [
        ("PHOTO;ENCODING=b;TYPE=JPEG:", "image/jpeg"),
        ("PHOTO;ENCODING=BASE64;TYPE=JPEG:", "image/jpeg"),
        ("photo;encoding=base64;type=jpeg:", "image/jpeg"),
        ("PHOTO;Encoding=B;Type=Png:", "image/png"),
        ("PHOTO;ENCODING=\"b\";TYPE=\"JPEG\":", "image/jpeg"),
        ("PHOTO;TYPE=GIF;ENCODING=b:", "image/gif"),
        ("PHOTO;ENCODING=b;TYPE=HEIC:", "image/heic"),
        ("PHOTO;ENCODING=b;TYPE=image/jpeg:", "image/jpeg"),
        ("PHOTO;ENCODING=b;MEDIATYPE=image/webp:", "image/webp"),
        ("PHOTO;X-NOTE=\"a:b;c,d\";ENCODING=b;TYPE=JPEG:", "image/jpeg"),
        ("PHOTO;JPEG;ENCODING=BASE64:", "image/jpeg"),
        ("PHOTO;BASE64;JPEG:", "image/jpeg"),
        ("item1.PHOTO;ENCODING=b;TYPE=JPEG:", "image/jpeg"),
    ])
    func decodesBase64PhotosWithTheirMediaType(header: String, mediaType: String) throws {
        let card = VCardFixtures.card(body: ["FN:Jane Doe", VCardFixtures.fold(header + Self.base64)])
        let preview = try VCardPreview(parsing: card)
        #expect(preview.photo == VCardPhoto(mediaType: mediaType, bytes: VCardFixtures.jpegPhoto))
        #expect(preview.warnings.isEmpty)
    }

    @Test(arguments: [
        "PHOTO;ENCODING=b:",
        "PHOTO;ENCODING=b;TYPE=X-UNKNOWN:",
        "PHOTO:data:;base64,",
        "PHOTO:data:application/octet-stream;base64,",
    ])
    func keepsAPhotoWhoseTypeIsUnknownWithoutAMediaType(header: String) throws {
        let preview = try VCardPreview(parsing: VCardFixtures.card(body: ["FN:Jane Doe", header + Self.base64]))
        #expect(preview.photo?.bytes == VCardFixtures.jpegPhoto)
        let expectedType: String? = header.contains("application/") ? "application/octet-stream" : nil
        #expect(preview.photo?.mediaType == expectedType)
    }

    @Test(arguments: [
        ("PHOTO:data:image/jpeg;base64,", "image/jpeg"),
        ("PHOTO:DATA:IMAGE/PNG;BASE64,", "image/png"),
        ("PHOTO;VALUE=uri:data:image/gif;base64,", "image/gif"),
        ("PHOTO;MEDIATYPE=image/png:data:;base64,", "image/png"),
        ("PHOTO:data:image/jpeg;name=me.jpg;base64,", "image/jpeg"),
    ])
    func decodesVersion4DataURIs(header: String, mediaType: String) throws {
        let card = VCardFixtures.card(version: "4.0", body: ["FN:Jane Doe", VCardFixtures.fold(header + Self.base64)])
        let preview = try VCardPreview(parsing: card)
        #expect(preview.photo == VCardPhoto(mediaType: mediaType, bytes: VCardFixtures.jpegPhoto))
        #expect(preview.warnings.isEmpty)
    }

    @Test(arguments: [
        ("PHOTO;ENCODING=b;TYPE=JPEG:", VCardWarning.photoEmpty),
        ("PHOTO;ENCODING=b;TYPE=JPEG:   ", .photoEmpty),
        ("PHOTO:", .photoEmpty),
        ("PHOTO:data:image/jpeg;base64,", .photoEmpty),
        ("PHOTO;ENCODING=b;TYPE=JPEG:@@@@not base64!!", .photoCorrupt),
        ("PHOTO;ENCODING=b;TYPE=JPEG:QUJ", .photoCorrupt),
        ("PHOTO;ENCODING=b;TYPE=JPEG:====", .photoCorrupt),
        ("PHOTO;ENCODING=b;TYPE=JPEG:QUJDRA==QUJD", .photoCorrupt),
        ("PHOTO;ENCODING=b;TYPE=JPEG:QUJD=", .photoCorrupt),
        ("PHOTO;ENCODING=b;TYPE=JPEG:QUJD-_8=", .photoCorrupt),
        ("PHOTO:data:image/jpeg;base64", .photoCorrupt),
        ("PHOTO:data:image/jpeg;base64,%%%", .photoCorrupt),
        ("PHOTO;ENCODING=QUOTED-PRINTABLE;TYPE=JPEG:=FF=D8", .photoUnsupportedEncoding),
        ("PHOTO;ENCODING=8bit:abc", .photoUnsupportedEncoding),
        ("PHOTO:data:image/svg+xml,%3Csvg%3E", .photoUnsupportedEncoding),
        ("PHOTO;VALUE=uri:https://example.com/johnny.jpg", .photoNotEmbedded),
        ("PHOTO;MEDIATYPE=image/jpeg:https://example.com/johnny.jpg", .photoNotEmbedded),
        ("PHOTO;VALUE=URL;TYPE=JPEG:http://example.com/johnny.jpg", .photoNotEmbedded),
    ])
    func aPhotoThatCannotBeShownGivesAWarningNotAFailure(line: String, warning: VCardWarning) throws {
        let card = VCardFixtures.card(body: ["FN:Jane Doe", "TITLE:Lead", line])
        let preview = try VCardPreview(parsing: card)
        #expect(preview.photo == nil)
        #expect(preview.warnings == [warning])
        #expect(preview.name == "Jane Doe")
        #expect(preview.title == "Lead")
    }

    @Test func aBrokenPhotoDamagedInTheMiddleOfAFoldedLineIsCorrupt() throws {
        var base64 = Array(Self.base64.utf8)
        base64[200] = UInt8(ascii: "*")
        let line = VCardFixtures.fold("PHOTO;ENCODING=b;TYPE=JPEG:" + String(decoding: base64, as: UTF8.self))
        let preview = try VCardPreview(parsing: VCardFixtures.card(body: ["FN:Jane Doe", line]))
        #expect(preview.photo == nil)
        #expect(preview.warnings == [.photoCorrupt])
    }

    @Test func onlyTheFirstPhotoIsConsidered() throws {
        let card = VCardFixtures.card(body: [
            "FN:Jane Doe",
            "PHOTO;ENCODING=b;TYPE=JPEG:@@@",
            "PHOTO;ENCODING=b;TYPE=JPEG:" + Self.base64,
        ])
        let preview = try VCardPreview(parsing: card)
        #expect(preview.photo == nil)
        #expect(preview.warnings == [.photoCorrupt])
    }

    @Test func warningsListTheMissingNameFirst() throws {
        let preview = try VCardPreview(parsing: VCardFixtures.card(body: ["PHOTO;ENCODING=b:"]))
        #expect(preview.warnings == [.missingName, .photoEmpty])
    }

    @Test(arguments: VCardWarning.allCases)
    func warningMessagesSayWhatTheUserSeesAndWhatToDo(warning: VCardWarning) {
        #expect(warning.description.contains("card"))
        #expect(warning.description.count > 40)
    }
}
