import Foundation
import SampleCards
import ShareLog
import TestSupport

/// The benchmark's cards: `SampleCard`'s, grown to the sizes the issue
/// asks for. `SampleCard` alone is about 380 bytes; a card as Contacts
/// exports it for a business contact is nearer 1 KB, so the fields such a
/// card carries (addresses, a second email and phone, links, profiles, a
/// birthday) are added before END:VCARD: about 1,050 bytes without a photo,
/// about 62 KB with `CardDeck.photoBytes` of photo.
enum BenchCard {
    static func make(index: Int, photoBytes: Int? = nil) -> [UInt8] {
        var card = SampleCard.make(index: index, photoBytes: photoBytes)
        let end = Array("END:VCARD\r\n".utf8)
        precondition(Array(card.suffix(end.count)) == end, "SampleCard ends with END:VCARD and CRLF")
        card.removeLast(end.count)
        let lines = [
            "item2.EMAIL;type=INTERNET;type=WORK:p.sample\(index)@work.example.com",
            "TEL;type=WORK;type=VOICE:+1 555 \(String(format: "%03d %04d", index % 1000, (index / 1000) % 10_000))",
            "item3.ADR;type=WORK;type=pref:;;\(100 + index % 900) Market Street;San Francisco;CA;94105;",
            " United States",
            "item3.X-ABADR:us",
            "item4.ADR;type=HOME:;;\(1 + index % 97) Elm Avenue\\, Apt \(1 + index % 40);Oakland;CA;94607;United States",
            "item4.X-ABADR:us",
            "item5.URL;type=pref:https://www.example.com/people/person-sample-\(index)",
            "item5.X-ABLabel:_$!<HomePage>!$_",
            "X-SOCIALPROFILE;type=linkedin:https://social.example.com/in/person-sample-\(index)",
            "X-SOCIALPROFILE;type=mastodon:https://social.example.org/@sample\(index)",
            "BDAY:\(1960 + index % 40)-\(String(format: "%02d-%02d", 1 + index % 12, 1 + index % 28))",
            "X-ABShowAs:PERSON",
            "UID:\(UUID(uuid: uuidOf(index)).uuidString)",
            "REV:2026-11-0\(1 + index % 9)T09:30:00Z",
        ]
        card += Array((lines.joined(separator: "\r\n") + "\r\n").utf8) + end
        return card
    }

    /// A stable UUID for card `index`.
    private static func uuidOf(_ index: Int) -> uuid_t {
        var random = SeededGenerator(seed: UInt64(index))
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }
        bytes[6] = bytes[6] & 0x0f | 0x40
        bytes[8] = bytes[8] & 0x3f | 0x80
        return bytes.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) }
    }
}
