import Foundation
import SampleCards
import ShareClip
import ShareLog

/// Valid inputs for each fuzz target, made from ShareLog's own writers so they
/// stay valid as the formats evolve.
enum FuzzSeeds {
    static let origin = ReplicaID(uuid: UUID(uuidString: "0fe35a84-f35d-4249-a734-328f62a39781")!)
    static let name = RecordName(uuid: UUID(uuidString: "33939938-0c7b-43f6-99f4-cd6379430856")!)

    /// Encoded events of every kind: created with a card, with a photo card,
    /// with an empty card and redacted; expired by ttl and revoked; a kind from
    /// a newer version; extreme times and sequences.
    static var events: [[UInt8]] {
        let created = Timestamp(milliseconds: 1_800_000_000_000)
        let kinds: [Event.Kind] = [
            .shareCreated(ShareCreated(recordName: name, vCard: SampleCard.make(index: 1), createdAt: created,
                                       expiresAt: created.advanced(by: .seconds(7 * 24 * 3600)))),
            .shareCreated(ShareCreated(recordName: name, vCard: SampleCard.make(index: 2, photoBytes: 96),
                                       createdAt: created, expiresAt: created.advanced(by: .seconds(60)))),
            .shareCreated(ShareCreated(recordName: name, vCard: [], createdAt: created, expiresAt: created)),
            .shareCreated(ShareCreated(recordName: name, vCard: nil, createdAt: Timestamp(milliseconds: .min),
                                       expiresAt: Timestamp(milliseconds: .max))),
            .shareExpired(ShareExpired(recordName: name, at: created, reason: .ttl)),
            .shareExpired(ShareExpired(recordName: name, at: Timestamp(milliseconds: -1), reason: .revoked)),
            .unknown(code: 7, flags: 2, payload: Array("a kind from a newer version".utf8)),
            .unknown(code: 0, flags: 0, payload: []),
        ]
        return kinds.enumerated().map { index, kind in
            let sequence: UInt64 = index == 3 ? .max : UInt64(index + 1)
            return EventCodec.encode(Event(id: EventID(origin: origin, counter: sequence), kind: kind))
        }
    }

    /// Cards as Contacts and other writers export them: 3.0 and 4.0, CRLF and
    /// LF, a byte order mark, folding, groups, quoted and encoded parameters,
    /// escapes, base64 and `data:` photos, N without FN, several cards.
    static var vCards: [[UInt8]] {
        let photo = Data(SampleCard.make(index: 9).prefix(48)).base64EncodedString()
        let texts = [
            "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Jane Appleseed\r\nORG:Acme;Sales\r\nTITLE:Boss\r\nEND:VCARD\r\n",
            "\u{FEFF}BEGIN:VCARD\nVERSION:4.0\nN:Appleseed;Jane;Q.;Dr.;PhD\nROLE:Chief\nEND:VCARD\n",
            "BEGIN:VCARD\r\nVERSION:4.0\r\nitem1.FN;LANGUAGE=\"en\":Jane\\, \\;Apple\\nseed\r\n"
                + "PHOTO:data:image/png;base64,\(photo)\r\nEND:VCARD\r\n",
            "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Jo\r\n hn\r\n\tny\r\nPHOTO;ENCODING=b;TYPE=JPEG:\(photo.prefix(30))\r\n"
                + " \(photo.dropFirst(30))\r\nEND:VCARD\r\n",
            "BEGIN:VCARD\r\nVERSION:2.1\r\nFN;ENCODING=QUOTED-PRINTABLE:J=C3=A9r=C3=B4me\r\n"
                + "PHOTO;VALUE=uri:https://example.com/p.jpg\r\nEND:VCARD\r\n",
            "begin:vcard\r\nversion:3.0\r\nfn:  \r\nn:;;;;\r\nphoto;encoding=BASE64:!!!\r\nend:vcard\r\n"
                + "BEGIN:VCARD\r\nFN:Second\r\nEND:VCARD\r\n",
        ]
        return texts.map { Array($0.utf8) } + [SampleCard.make(index: 3), SampleCard.make(index: 4, photoBytes: 120)]
    }

    /// Links the parser accepts, in their variations, and ones it refuses
    /// for each reason.
    static var links: [[UInt8]] {
        let id = "33939938-0c7b-43f6-99f4-cd6379430856"
        let texts = [
            AppClipLinkBuilder().link(for: .share(recordName: name.uuid)),
            "HTTPS://Cards.Example.COM:443/appclip/?utm_source=qr&id=\(id.uppercased())",
            "https://cards.example.com/appclip?%69d=\(id.replacingOccurrences(of: "-", with: "%2D"))",
            "https://user@cards.example.com/appclip?id=\(id)",
            "https://cards.example.com:8443/appclip?id=\(id)#frag",
            "https://cards.example.com/appclip?id=\(id)&id=\(id)",
            "http://cards.example.com.evil.net/AppClip?ID=x",
            "cards.example.com",
            "xn--bcher-kva.example",
        ]
        return texts.map { Array($0.utf8) }
    }
}
