import Foundation
import ShareClip
import TestSupport
import Testing
import TestTraits

@Suite(.ownThread) struct VCardPreviewTests {
    @Test func showsAnAppleContactsExportWithItsFoldedPhoto() throws {
        let preview = try VCardPreview(parsing: VCardFixtures.appleExport)
        #expect(preview.name == "Johnny Appleseed")
        #expect(preview.title == "Orchard Engineer")
        #expect(preview.organization == "Apple Inc.")
        #expect(preview.photo?.mediaType == "image/jpeg")
        #expect(preview.photo?.bytes == VCardFixtures.jpegPhoto)
        #expect(preview.warnings.isEmpty)
    }

    /// Photos small enough to check by eye: the base64 text and its bytes
    /// were both written by hand (and checked with coreutils' `base64`), with
    /// two `=`, one `=` and no padding, folded with a space or a tab.
    @Test(arguments: [
        ("PHOTO;ENCODING=b;TYPE=JPEG:/9j/4AAQ\r\n SkZJRgABAQ==", "image/jpeg",
         [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01] as [UInt8]),
        ("PHOTO:data:image/png;base64,iVBORw0K\r\n GgoAAAANSUg=", "image/png",
         [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48]),
        ("PHOTO;ENCODING=BASE64;TYPE=GIF:R0lGODlh\r\n\tAQABAIAA", "image/gif",
         [0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0x01, 0x00, 0x01, 0x00, 0x80, 0x00]),
    ])
    func decodesAHandWrittenPhotoToItsHandWrittenBytes(photoLine: String, mediaType: String, bytes: [UInt8]) throws {
        let preview = try VCardPreview(parsing: VCardFixtures.card(body: ["FN:Johnny Appleseed", photoLine]))
        #expect(preview.photo?.mediaType == mediaType)
        #expect(preview.photo.map { Array($0.bytes) } == bytes)
        #expect(preview.warnings == [])
    }

    @Test func showsAVersion4CardWithADataURIPhoto() throws {
        let preview = try VCardPreview(parsing: VCardFixtures.version4DataURI)
        #expect(preview == VCardPreview(
            name: "Jane Doe",
            title: "Project Lead",
            organization: "Example Corp",
            photo: VCardPhoto(mediaType: "image/png", bytes: VCardFixtures.jpegPhoto),
            warnings: []
        ))
    }

    @Test func aHundredKilobyteCardGivesBackExactlyThePhotoBytesThatWereEncoded() throws {
        #expect((95_000...105_000).contains(VCardFixtures.largeCard.count))
        let preview = try VCardPreview(parsing: VCardFixtures.largeCard)
        #expect(preview.photo?.bytes == VCardFixtures.largePhoto)
        #expect(preview.photo?.mediaType == "image/jpeg")
        #expect(preview.name == "Johnny Appleseed")
        #expect(preview.warnings.isEmpty)
    }

    @Test(arguments: [1, 2, 3, 4, 5, 10, 63, 74, 75, 76])
    func unfoldsAPhotoFoldedAtAnyWidth(octets: Int) throws {
        let photo = VCardFixtures.pseudoRandomBytes(count: 300, seed: UInt64(octets))
        let card = VCardFixtures.card(body: [
            "FN:Johnny Appleseed",
            VCardFixtures.fold("PHOTO;ENCODING=b;TYPE=JPEG:" + photo.base64EncodedString(), octets: octets),
        ])
        #expect(try VCardPreview(parsing: card).photo?.bytes == photo)
    }

    @Test(arguments: [
        ("\r\n", " "), ("\r\n", "\t"), ("\n", " "), ("\n", "\t"),
    ])
    func unfoldsLinesFoldedWithEitherLineEndAndEitherWhitespace(lineEnding: String, continuation: String) throws {
        let card = VCardFixtures.card(body: [
            VCardFixtures.fold("FN:Johnathan Quincy Appleseed-Orchardkeeper", octets: 8, lineEnding: lineEnding, continuation: continuation),
            VCardFixtures.fold("PHOTO;ENCODING=b;TYPE=JPEG:" + VCardFixtures.jpegPhoto.base64EncodedString(), lineEnding: lineEnding, continuation: continuation),
        ], lineEnding: lineEnding)
        let preview = try VCardPreview(parsing: card)
        #expect(preview.name == "Johnathan Quincy Appleseed-Orchardkeeper")
        #expect(preview.photo?.bytes == VCardFixtures.jpegPhoto)
    }

    @Test func unfoldingRemovesOnlyTheLineBreakAndOneSpace() throws {
        let card = VCardFixtures.card(body: ["FN:Johnny\r\n  Appleseed", "TI\r\n TLE:Orchard\r\n Engineer"])
        let preview = try VCardPreview(parsing: card)
        #expect(preview.name == "Johnny Appleseed")
        #expect(preview.title == "OrchardEngineer")
    }

    @Test(arguments: [
        ("N:Appleseed;Johnny;;;", "Johnny Appleseed"),
        ("N:Appleseed;Johnny", "Johnny Appleseed"),
        ("N:Public;John;Quinlan;Mr.;Esq.", "Mr. John Quinlan Public Esq."),
        ("N:Stevenson;John;Philip,Paul;Dr.;Jr.,M.D.", "Dr. John Philip Paul Stevenson Jr. M.D."),
        ("N:Cher;;;;", "Cher"),
        ("N:;Madonna;;;", "Madonna"),
        ("N: Appleseed ; Johnny ;;;", "Johnny Appleseed"),
        ("N:O\\;Brien;Conan;;;", "Conan O;Brien"),
        ("N:Smith\\, Jr;Will;;;", "Will Smith, Jr"),
        ("item1.N:Appleseed;Johnny;;;", "Johnny Appleseed"),
    ])
    func namesTheContactFromNWhenFNIsMissing(nLine: String, name: String) throws {
        let preview = try VCardPreview(parsing: VCardFixtures.card(body: [nLine]))
        #expect(preview.name == name)
        #expect(preview.warnings.isEmpty)
    }

    @Test func prefersFNOverN() throws {
        let card = VCardFixtures.card(body: ["N:Appleseed;Johnny;;;", "FN:Johnny \"Apples\" Appleseed"])
        #expect(try VCardPreview(parsing: card).name == "Johnny \"Apples\" Appleseed")
    }

    @Test func usesNWhenFNIsBlank() throws {
        let card = VCardFixtures.card(body: ["FN: ", "N:Appleseed;Johnny;;;"])
        #expect(try VCardPreview(parsing: card).name == "Johnny Appleseed")
    }

    @Test(arguments: [
        [String](),
        ["N:;;;;"],
        ["FN:", "N:;;;;"],
        ["ORG:Apple Inc."],
    ])
    func warnsWhenTheCardHasNoNameAtAll(lines: [String]) throws {
        let preview = try VCardPreview(parsing: VCardFixtures.card(body: lines))
        #expect(preview.name == nil)
        #expect(preview.warnings == [.missingName])
    }

    @Test func usesROLEWhenTITLEIsMissingOrBlank() throws {
        let missing = VCardFixtures.card(body: ["FN:Jane Doe", "ROLE:Project Lead"])
        let blank = VCardFixtures.card(body: ["FN:Jane Doe", "TITLE:", "ROLE:Project Lead"])
        #expect(try VCardPreview(parsing: missing).title == "Project Lead")
        #expect(try VCardPreview(parsing: blank).title == "Project Lead")
    }

    @Test func prefersTITLEOverROLEWhicheverComesFirst() throws {
        let card = VCardFixtures.card(body: ["FN:Jane Doe", "ROLE:Project Lead", "TITLE:Director"])
        #expect(try VCardPreview(parsing: card).title == "Director")
    }

    @Test(arguments: [
        ("ORG:Example Corp;Research;Imaging", "Example Corp"),
        ("ORG:Apple Inc.;", "Apple Inc."),
        ("ORG:Apple Inc.", "Apple Inc."),
        ("ORG:Procter \\& Gamble\\; Co.;Marketing", "Procter & Gamble; Co."),
        ("ORG:ABC\\, Inc.;North American Division;Marketing", "ABC, Inc."),
        ("ORG:ABC, Inc.;Sales", "ABC, Inc."),
        ("item3.ORG:Grouped Org;Unit", "Grouped Org"),
    ])
    func showsTheFirstComponentOfORG(orgLine: String, organization: String) throws {
        let preview = try VCardPreview(parsing: VCardFixtures.card(body: ["FN:Jane Doe", orgLine]))
        #expect(preview.organization == organization)
    }

    @Test func anORGWithOnlyUnitsHasNoOrganization() throws {
        let preview = try VCardPreview(parsing: VCardFixtures.card(body: ["FN:Jane Doe", "ORG:;Research"]))
        #expect(preview.organization == nil)
    }

    @Test(arguments: [
        ("FN:Smith\\, John", "Smith, John"),
        ("FN:Semi\\;colon", "Semi;colon"),
        ("FN:Back\\\\slash", "Back\\slash"),
        ("FN:Two\\nLines", "Two\nLines"),
        ("FN:Two\\NLines", "Two\nLines"),
        ("FN:Plain, comma; semicolon", "Plain, comma; semicolon"),
        ("FN:Colon: inside", "Colon: inside"),
        ("FN:Trailing backslash\\", "Trailing backslash\\"),
        ("FN:Zoë Łukasz 山田 🍎", "Zoë Łukasz 山田 🍎"),
    ])
    func resolvesEscapesInText(fnLine: String, name: String) throws {
        #expect(try VCardPreview(parsing: VCardFixtures.card(body: [fnLine])).name == name)
    }

    @Test func ignoresGroupNamesAndLookAlikeProperties() throws {
        let card = VCardFixtures.card(body: [
            "X-FN:Not The Name",
            "FNX:Not The Name Either",
            "item1.X-ABLabel:FN",
            "item1.EMAIL;type=INTERNET:fn:title@example.com",
            "X-ABRELATEDNAMES;type=pref:TITLE:Boss",
            "item2.FN:Johnny Appleseed",
            "item2.X-ABLabel:_$!<Other>!$_",
            "item3.TITLE:Orchard Engineer",
        ])
        let preview = try VCardPreview(parsing: card)
        #expect(preview.name == "Johnny Appleseed")
        #expect(preview.title == "Orchard Engineer")
    }

    @Test func readsLowercasePropertyNames() throws {
        let card = VCardFixtures.card(body: ["fn:Johnny Appleseed", "Title:Engineer", "org:Apple Inc."])
        let preview = try VCardPreview(parsing: card)
        #expect(preview.name == "Johnny Appleseed")
        #expect(preview.title == "Engineer")
        #expect(preview.organization == "Apple Inc.")
    }

    @Test func readsLFOnlyCards() throws {
        let text = String(decoding: VCardFixtures.appleExport, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
        #expect(!text.contains("\r"))
        #expect(try VCardPreview(parsing: Array(text.utf8)) == VCardPreview(parsing: VCardFixtures.appleExport))
    }

    @Test func readsCardsWithAByteOrderMarkAndSurroundingBlankLines() throws {
        let card = [0xEF, 0xBB, 0xBF] + Array("\r\n\r\n".utf8) + VCardFixtures.appleExport + Array("\r\n\r\n".utf8)
        #expect(try VCardPreview(parsing: card) == VCardPreview(parsing: VCardFixtures.appleExport))
    }

    @Test func readsDataAndNonContiguousCollections() throws {
        let expected = try VCardPreview(parsing: VCardFixtures.appleExport)
        #expect(try VCardPreview(parsing: Data(VCardFixtures.appleExport)) == expected)
        #expect(try VCardPreview(parsing: VCardFixtures.appleExport.lazy.map { $0 }) == expected)
    }

    @Test func trimsWhitespaceAroundFields() throws {
        let card = VCardFixtures.card(body: ["FN:  Johnny Appleseed\t", "TITLE: Engineer ", "ORG:  Apple Inc. ;Unit"])
        let preview = try VCardPreview(parsing: card)
        #expect(preview.name == "Johnny Appleseed")
        #expect(preview.title == "Engineer")
        #expect(preview.organization == "Apple Inc.")
    }

    @Test func usesTheFirstOfRepeatedProperties() throws {
        let card = VCardFixtures.card(body: ["FN:First Name", "FN:Second Name", "TITLE:First Title", "TITLE:Second Title"])
        let preview = try VCardPreview(parsing: card)
        #expect(preview.name == "First Name")
        #expect(preview.title == "First Title")
    }

    @Test func readsOnlyTheFirstCardOfAFile() throws {
        let file = VCardFixtures.card([
            "BEGIN:VCARD", "FN:First Card", "END:VCARD",
            "BEGIN:VCARD", "FN:Second Card", "TITLE:Second Title", "END:VCARD",
        ])
        let preview = try VCardPreview(parsing: file)
        #expect(preview.name == "First Card")
        #expect(preview.title == nil)
    }

    @Test func skipsMalformedLines() throws {
        let card = VCardFixtures.card(body: [
            "this line has no colon",
            "TITLE;X-NOTE=\"unclosed:Broken Title",
            "",
            "FN:Johnny Appleseed",
            "TITLE:Engineer",
        ])
        let preview = try VCardPreview(parsing: card)
        #expect(preview.name == "Johnny Appleseed")
        #expect(preview.title == "Engineer")
    }

    @Test func damagedCardsGiveAPreviewOrAnErrorButNeverCrash() throws {
        let noise = Array(VCardFixtures.pseudoRandomBytes(count: 3 * 2_000, seed: 99))
        let original = VCardFixtures.appleExport
        let interesting: [UInt8] = Array(":;,=\"\\\r\n \t.".utf8)
        // The CR that ends the line before PHOTO: damage before it leaves the
        // PHOTO line, and the BEGIN and END lines, as they were.
        let photoLine = try #require(original.firstRange(of: Array("\r\nPHOTO".utf8))).lowerBound
        var damagedBeforeThePhoto = 0
        var wrongPhotos: [String] = []
        for step in stride(from: 0, to: noise.count, by: 3) {
            let (position, choice, value) = (noise[step], noise[step + 1], noise[step + 2])
            var card = original
            let index = 13 + Int(position) * (card.count - 26) / 256
            switch choice % 3 {
            case 0: card[index] = interesting[Int(value) % interesting.count]
            case 1: card.remove(at: index)
            default: card.insert(interesting[Int(value) % interesting.count], at: index)
            }
            let outcome = Result { () throws(VCardError) in try VCardPreview(parsing: card) }
            let photo = try? outcome.get().photo?.bytes
            if index < photoLine {
                // The photo is untouched, so it is exactly the one encoded.
                damagedBeforeThePhoto += 1
                if photo != VCardFixtures.jpegPhoto { wrongPhotos.append(String(decoding: card, as: UTF8.self)) }
            } else if let photo, !ReferencePhotoReader.holds(Array(photo), in: card) {
                // Whatever the damage, a photo shown is exactly the base64
                // that ends one of the card's content lines, decoded independently.
                wrongPhotos.append(String(decoding: card, as: UTF8.self))
            }
        }
        try #require(damagedBeforeThePhoto >= 100, "the noise must damage the lines before PHOTO too")
        #expect(wrongPhotos.count == 0, "\(wrongPhotos.count) damaged cards show a wrong photo, the first: \(wrongPhotos.first ?? "")")
    }

    @Test(arguments: [
        Array("not a vcard".utf8),
        Array("BEGIN:VCARD\r\nFN:Cut off".utf8),
        [UInt8](),
        Array("BEGIN:VCARD\r\nFN:".utf8) + [0xC3, 0x28] + Array("\r\nEND:VCARD\r\n".utf8),
    ])
    func refusesWhatTheValidatorRefuses(bytes: [UInt8]) {
        let validatorError = #expect(throws: VCardError.self) { try VCardValidator.validate(bytes) }
        let previewError = #expect(throws: VCardError.self) { try VCardPreview(parsing: bytes) }
        #expect(validatorError == previewError)
    }
}
