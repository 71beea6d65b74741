import Foundation
import TestSupport

/// The fixed times of the process tests (no test reads today's date):
/// shares are made at `created` for 7 days, and gateways serve at `serving`,
/// two days and three hours later.
enum ProcessClock {
    /// `share create … --ttl 7d` runs at this time: shares end 2026-03-09T09:00:00Z.
    static let created = "2026-03-02T09:00:00Z"
    /// A gateway's `--now`: a Wednesday, with more than five minutes left on every live share.
    static let serving = "2026-03-04T12:00:00Z"
    /// `Date` at `serving`, as HTTP writes it.
    static let servingDate = "Wed, 04 Mar 2026 12:00:00 GMT"
    /// `Expires` of a live share at `serving`: five minutes on (the cap).
    static let servingExpires = "Wed, 04 Mar 2026 12:05:00 GMT"
}

/// The app ids of a gateway that serves the App Clip.
enum ProcessApps {
    static let clip = "ABCDE12345.com.example.cards.Clip"
    static let full = "ABCDE12345.com.example.cards"
    static let appStoreID = "1234567890"
    static let arguments = ["--app-id", clip, "--full-app-id", full, "--app-store-id", appStoreID]
}

/// A store in a temporary directory, filled through the `sharelog` CLI at
/// the fixed times, and the gateways that serve it.
final class ProcessStore {
    let directory: TemporaryDirectory
    let store: String

    init(_ label: String = #function) throws {
        directory = TemporaryDirectory(label)
        store = directory.appending("store")
        _ = try cli(at: ProcessClock.created).run("init").checked("sharelog init")
    }

    /// The CLI on this store at `now`.
    func cli(at now: String) -> SharelogCLI { SharelogCLI(store: store, now: now, timeout: .seconds(30)) }

    /// `share create - --ttl ttl` of `card` at `now`; the id it printed.
    func share(_ card: [UInt8], at now: String = ProcessClock.created, ttl: String = "7d") throws -> String {
        let created = try cli(at: now).run("share", "create", "-", "--ttl", ttl, "--json", input: card).checked("sharelog share create")
        guard let id = created.json["id"] as? String else { throw HarnessFailure.unexpected("share create printed no id: \(created.text)") }
        return id
    }

    /// `share revoke ID` at `now`.
    func revoke(_ id: String, at now: String) throws {
        _ = try cli(at: now).run("share", "revoke", id).checked("sharelog share revoke")
    }

    /// `sharelog --now now http --listen tcp:127.0.0.1:0 extra…`, started and serving.
    func gateway(at now: String = ProcessClock.serving, _ extra: [String] = ProcessApps.arguments) throws -> GatewayProcess {
        try GatewayProcess(cli(at: now), extra: extra)
    }
}

/// The cards of the process tests, written out here as an uploader would
/// send them, and the fixture card with its photo.
enum ProcessCards {
    /// A plain card with no photo.
    static let plain = Array("""
        BEGIN:VCARD\r
        VERSION:3.0\r
        N:Lovelace;Ada;;;\r
        FN:Ada Lovelace\r
        ORG:Analytical Engines Ltd\r
        TITLE:Programmer\r
        EMAIL;type=INTERNET:ada@example.com\r
        END:VCARD\r

        """.utf8)

    /// A card whose every shown field holds markup and script: a page that
    /// does not escape them runs the script or gains elements.
    static let hostile = Array("""
        BEGIN:VCARD\r
        VERSION:3.0\r
        N:Evil;Mallory;;;\r
        FN:<script>document.title='pwned'</script><img src=x onerror="document.body.id='pwned'">Mallory\r
        ORG:"><b id=injected-org>Acme</b> & Sons\r
        TITLE:</title><script>alert(1)</script><svg onload=alert(2)>\r
        END:VCARD\r

        """.utf8)

    /// Tests/Fixtures/card-with-photo.vcf (Adaeze Okafor, with a 45,000-byte JPEG-typed photo).
    static var withPhotoFixture: [UInt8] {
        get throws { try Array(Data(contentsOf: fixtures.appendingPathComponent("card-with-photo.vcf"))) }
    }

    /// Tests/Fixtures/photo.jpg, the photo of `withPhotoFixture`.
    static var fixturePhoto: [UInt8] {
        get throws { try Array(Data(contentsOf: fixtures.appendingPathComponent("photo.jpg"))) }
    }

    private static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    /// A card as Contacts exports one, with `photo` (PNG bytes) as its
    /// photo, base64 folded at 74 octets; no PHOTO when `photo` is empty.
    static func card(name: String, family: String, given: String, title: String, organization: String, png photo: [UInt8]) -> [UInt8] {
        let encoded = "PHOTO;ENCODING=b;TYPE=PNG:" + Data(photo).base64EncodedString()
        var folded: [String] = []
        var rest = Substring(encoded)
        folded.append(String(rest.prefix(75)))
        rest = rest.dropFirst(75)
        while !rest.isEmpty {
            folded.append(" " + rest.prefix(74))
            rest = rest.dropFirst(74)
        }
        let lines = [
            "BEGIN:VCARD", "VERSION:3.0", "PRODID:-//Apple Inc.//iPhone OS 18.0//EN", "N:\(family);\(given);;;", "FN:\(name)",
            "ORG:\(organization);", "TITLE:\(title)", "item1.EMAIL;type=INTERNET;type=pref:\(given.lowercased())@example.com",
        ] + (photo.isEmpty ? [] : folded) + ["END:VCARD"]
        return Array((lines.joined(separator: "\r\n") + "\r\n").utf8)
    }

    /// A 256×256 PNG portrait (a head and shoulders on a blue gradient),
    /// drawn by Python's standard library (zlib and struct), so the page's
    /// photo is a real image a browser decodes.
    static func portraitPNG() throws -> [UInt8] {
        let script = """
            import base64, struct, sys, zlib
            size = 256
            rows = bytearray()
            for y in range(size):
                rows.append(0)
                for x in range(size):
                    t = y / size
                    r, g, b = int(40 + 60 * t), int(110 + 60 * t), int(200 + 40 * t)
                    head = (x - 128) ** 2 + (y - 100) ** 2 < 46 ** 2
                    body = (x - 128) ** 2 / 90 ** 2 + (y - 250) ** 2 / 85 ** 2 < 1
                    if head or body:
                        r, g, b = 242, 228, 214
                    rows += bytes((r, g, b))
            def chunk(kind, data):
                return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff)
            png = b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', size, size, 8, 2, 0, 0, 0)) \\
                + chunk(b'IDAT', zlib.compress(bytes(rows), 9)) + chunk(b'IEND', b'')
            sys.stdout.write(base64.b64encode(png).decode())
            """
        let made = try PythonClient.run(script, [], timeout: .seconds(30)).checked("python3 (draw a PNG)")
        guard let png = Data(base64Encoded: made.text) else { throw HarnessFailure.unexpected("python3 printed no base64 PNG") }
        return Array(png)
    }
}

extension GatewayProcess {
    /// Reads its log until `count` access lines are in, or throws at `timeout`.
    func waitForAccessLines(_ count: Int, timeout: Duration = .seconds(20)) throws {
        try Deadline.block(until: "the gateway logs \(count) requests; it logged \(lines)", timeout: timeout, every: .milliseconds(5)) {
            pump()
            return accessLines.count >= count
        }
    }
}
