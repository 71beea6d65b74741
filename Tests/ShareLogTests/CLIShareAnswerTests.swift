import Foundation
import SampleCards
import Testing
import TestSupport
import TestTraits

/// How `share get` shows a card, as docs/CLI.md promises: a broken photo
/// never fails the command, `--photo` works beside `--vcard`, `--vcard
/// --json` is JSON, and the card's words cannot print lines of their own
/// (issue "The CLI keeps every promise its docs make", items 3, 5, 14, 17).
@Suite(.hangDeadline) struct CLIShareAnswerTests {
    static func store(_ dir: TemporaryDirectory) throws -> CLI {
        let cli = CLI(store: dir.appending("store"), now: "2026-12-01T10:00:00Z")
        _ = try cli.run("init")
        return cli
    }

    static func share(_ card: [UInt8], _ cli: CLI) throws -> String {
        let created = try cli.run("share", "create", "-", "--json", input: Data(card))
        return try #require(created.json["id"] as? String, "\(created.error)")
    }

    @Test func aCardWithoutAReadablePhotoIsStillShownAndSaysSo() throws {
        let dir = TemporaryDirectory()
        let cli = try Self.store(dir)
        let broken = Data("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Jane\r\nPHOTO;ENCODING=b;TYPE=JPEG:!!!not base64!!!\r\nEND:VCARD\r\n".utf8)
        let id = try Self.share(Array(broken), cli)
        let path = dir.appending("photo.jpg")
        let text = try cli.run("share", "get", id, "--photo", path)
        #expect(text.status == 0, "\(text.error)")
        #expect(text.output.contains("status:   live\n"))
        #expect(text.error == "sharelog: the card has no readable photo; nothing written to \(path)\n")
        #expect(!FileManager.default.fileExists(atPath: path))
        let json = try cli.run("share", "get", id, "--photo", path, "--json")
        #expect(json.status == 0)
        #expect(json.json["photoWritten"] as? Bool == false)
    }

    @Test func photoAndVCardTogetherGiveBoth() throws {
        let dir = TemporaryDirectory()
        let cli = try Self.store(dir)
        let card = SampleCard.make(index: 7, photoBytes: 3000)
        let id = try Self.share(card, cli)
        let path = dir.appending("photo.jpg")
        let result = try cli.run("share", "get", id, "--vcard", "--photo", path)
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output == String(decoding: card, as: UTF8.self))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Self.photo(in: card))
        let json = try cli.run("share", "get", id, "--vcard", "--json")
        #expect(json.json["vCard"] as? String == String(decoding: card, as: UTF8.self))
        #expect(json.json["status"] as? String == "live")
    }

    @Test func aCardsWordsCannotPrintALineOrDriveTheTerminal() throws {
        let dir = TemporaryDirectory()
        let cli = try Self.store(dir)
        // vCard's own escape: "\n" in a value is a line break in the name.
        let card = Data("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Jane\\nstatus:   expired\r\nTITLE:Boss\u{1B}[2J\u{202E}\r\nEND:VCARD\r\n".utf8)
        let id = try Self.share(Array(card), cli)
        let shown = try cli.run("share", "get", id)
        #expect(shown.status == 0)
        let lines = shown.output.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.filter { $0.hasPrefix("status:") } == ["status:   live"])
        #expect(lines.contains(#"name:     Jane\nstatus:   expired"#))
        #expect(lines.contains(#"title:    Boss\u{1B}[2J\u{202E}"#))
        #expect(!shown.output.contains("\u{1B}"))
    }

    /// `stats` counts each share once: live by the clock, due (ended, not
    /// yet swept) or expired (rough edge: due ones were counted as live too).
    @Test func statsCountsEachShareOnce() throws {
        let dir = TemporaryDirectory()
        let cli = try Self.store(dir)
        for ttl in ["1h", "7d"] { _ = try cli.run("share", "create", "-", "--ttl", ttl, input: Data(SampleCard.make(index: 1))) }
        let before = try cli.run("stats", "--json", "--now", "2026-12-01T12:00:00Z").json
        #expect([before["live"], before["due"], before["expired"]] as? [Int] == [1, 1, 0])
        _ = try cli.run("sweep", "--now", "2026-12-01T12:00:00Z")
        let after = try cli.run("stats", "--json", "--now", "2026-12-01T12:00:00Z").json
        #expect([after["live"], after["due"], after["expired"]] as? [Int] == [1, 0, 1])
        let text = try cli.run("stats", "--now", "2026-12-01T12:00:00Z").output
        #expect(text.contains("shares:    1 live, 0 ended awaiting a sweep, 1 expired\n"), "\(text)")
    }

    /// The photo's bytes, decoded here from the card's folded base64 line.
    static func photo(in card: [UInt8]) throws -> Data {
        let text = String(decoding: card, as: UTF8.self).replacingOccurrences(of: "\r\n ", with: "")
        let line = try #require(text.split(separator: "\r\n").first { $0.hasPrefix("PHOTO;") })
        return try #require(Data(base64Encoded: String(line.split(separator: ":", maxSplits: 1)[1])))
    }
}
