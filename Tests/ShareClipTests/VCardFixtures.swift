import Foundation
import SampleCards
@testable import ShareClip

/// Hand-made vCards and the helpers that build them.
enum VCardFixtures {
    /// The lines joined and terminated with `lineEnding` (CRLF, as Contacts writes, by default).
    static func card(_ lines: [String], lineEnding: String = "\r\n") -> [UInt8] {
        Array((lines.joined(separator: lineEnding) + lineEnding).utf8)
    }

    /// A minimal card around `lines`: BEGIN, VERSION, the lines, END.
    static func card(version: String = "3.0", body lines: [String], lineEnding: String = "\r\n") -> [UInt8] {
        card(["BEGIN:VCARD", "VERSION:\(version)"] + lines + ["END:VCARD"], lineEnding: lineEnding)
    }

    /// Folds a content line after every `octets` octets of content (RFC 6350 §3.2 uses 75):
    /// each continuation line starts with `lineEnding` and `continuation` (one space or tab),
    /// so a continuation line is `octets + 1` octets long. A line is shortened rather than split
    /// inside a multi-octet character.
    static func fold(_ line: String, octets: Int = 75, lineEnding: String = "\r\n", continuation: String = " ") -> String {
        let bytes = Array(line.utf8)
        var physical: [String] = []
        var index = 0
        while index < bytes.count {
            var next = min(index + octets, bytes.count)
            while next < bytes.count, next > index + 1, bytes[next] & 0xC0 == 0x80 { next -= 1 }
            physical.append(String(decoding: bytes[index..<next], as: UTF8.self))
            index = next
        }
        return physical.joined(separator: lineEnding + continuation)
    }

    /// `count` deterministic pseudo-random bytes (SplitMix64 seeded with `seed`).
    static func pseudoRandomBytes(count: Int, seed: UInt64) -> Data {
        Data(SampleCard.pseudoRandomBytes(count: count, seed: seed))
    }

    /// The first bytes of a JPEG file (SOI, APP0 "JFIF"), standing in for a contact photo.
    static let jpegPhoto = Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01])
        + pseudoRandomBytes(count: 600, seed: 7)

    /// A vCard 3.0 as the iOS Contacts app shares it: CRLF, grouped properties, Apple labels,
    /// and a base64 JPEG photo folded at 75 octets.
    static let appleExport = card([
        "BEGIN:VCARD",
        "VERSION:3.0",
        "PRODID:-//Apple Inc.//iPhone OS 18.0//EN",
        "N:Appleseed;Johnny;;;",
        "FN:Johnny Appleseed",
        "ORG:Apple Inc.;",
        "TITLE:Orchard Engineer",
        "item1.EMAIL;type=INTERNET;type=pref:johnny@example.com",
        "item1.X-ABLabel:_$!<Other>!$_",
        "TEL;type=CELL;type=VOICE;type=pref:+1 (555) 010-0000",
        "item2.ADR;type=HOME;type=pref:;;1 Infinite Loop;Cupertino;CA;95014;United States",
        "item2.X-ABADR:us",
        "NOTE:Met at the orchard\\, spring 2024",
        fold("PHOTO;ENCODING=b;TYPE=JPEG:" + jpegPhoto.base64EncodedString()),
        "END:VCARD",
    ])

    /// A vCard 4.0 with its photo as a folded `data:` URI.
    static let version4DataURI = card(version: "4.0", body: [
        "FN:Jane Doe",
        "N:Doe;Jane;;;",
        "ROLE:Project Lead",
        "ORG:Example Corp;Research;Imaging",
        fold("PHOTO:data:image/png;base64," + jpegPhoto.base64EncodedString()),
    ])

    /// A ~100 KB vCard 3.0 whose folded photo is `largePhoto`.
    static let largePhoto = pseudoRandomBytes(count: 73_000, seed: 0x5EED)

    static let largeCard = card(version: "3.0", body: [
        "N:Appleseed;Johnny;;;",
        "FN:Johnny Appleseed",
        "TITLE:Senior Engineer",
        fold("PHOTO;ENCODING=b;TYPE=JPEG:" + largePhoto.base64EncodedString()),
    ])
}
