import Foundation
import Testing
import TestSupport
@testable import ShareLog
import TestTraits

/// Runs the built `sharelog` binary as a user would, at a fixed time.
///
/// Every run passes `--now`: `now` unless the arguments carry their own. No
/// CLI test reads the real clock, so none can start failing on a later date.
struct CLI {
    static let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        .deletingLastPathComponent().appendingPathComponent("sharelog")

    let store: String
    var now = "2026-12-01T10:00:00Z"

    struct Result {
        let status: Int32
        let output: String
        let error: String
        var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(output.utf8))) as? [String: Any] ?? [:]
        }
    }

    /// The child's whole environment: empty, but for the clock shift that
    /// `Scripts/test` applies with `faketime` (docs/RELIABILITY.md), so a
    /// command that read the real clock would be caught by that run too.
    /// Log lines are text, which the tests read.
    static let inheritedEnvironment = ProcessInfo.processInfo.environment.filter { name, _ in
        name == "LD_PRELOAD" || name.hasPrefix("FAKETIME")
    }.merging(["SHARELOG_LOG_FORMAT": "text"]) { kept, _ in kept }

    func run(_ arguments: String..., input: Data? = nil) throws -> Result {
        try run(arguments: arguments, input: input)
    }
}

@Suite(.hangDeadline) struct CLITests {
    static let card = Data("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Jane Appleseed\r\nORG:Acme;Sales\r\nTITLE:Boss\r\nEND:VCARD\r\n".utf8)

    @Test func aSessionCreatesGetsSweepsAndGetsAgain() throws {
        let dir = TemporaryDirectory()
        var cli = CLI(store: dir.appending("store"), now: "2026-12-01T10:00:00Z")
        #expect(try cli.run("init", "--json").json["created"] as? Bool == true)
        let created = try cli.run("share", "create", "-", "--ttl", "1h", "--json", input: Self.card)
        #expect(created.status == 0)
        let id = try #require(created.json["id"] as? String)
        #expect(created.json["expiresAt"] as? String == "2026-12-01T11:00:00.000Z")
        let live = try cli.run("share", "get", id, "--json", "--now", "2026-12-01T10:30:00Z")
        #expect(live.status == 0)
        #expect(live.json["status"] as? String == "live")
        #expect((live.json["preview"] as? [String: Any])?["name"] as? String == "Jane Appleseed")
        let byLink = try cli.run("share", "get", "https://cards.example.com/appclip?id=\(id)", "--vcard")
        #expect(byLink.output == String(decoding: Self.card, as: UTF8.self))
        cli.now = "2026-12-01T11:00:00Z"
        let swept = try cli.run("sweep", "--json")
        #expect(swept.json["expired"] as? Int == 1)
        let expired = try cli.run("share", "get", id, "--json")
        #expect(expired.status == 4)
        #expect(expired.json["status"] as? String == "expired")
        #expect(expired.json["expiredAt"] as? String == "2026-12-01T11:00:00.000Z")
        #expect(try cli.run("compact", "--json").json["redacted"] as? Int == 1)
        #expect(try cli.run("verify").status == 0)
        let lines = try cli.run("log", "--json").output.split(separator: "\n")
        #expect(lines.count == 2)
    }

    @Test func exitCodesSayWhatWentWrong() throws {
        let dir = TemporaryDirectory()
        let cli = CLI(store: dir.appending("store"))
        #expect(try cli.run("stats").status == 3)  // no store yet
        _ = try cli.run("init")
        #expect(try cli.run("frobnicate").status == 2)
        #expect(try cli.run("sweep", "--batch", "0").status == 5)
        #expect(try cli.run("sweep", "--bogus").status == 2)
        #expect(try cli.run("share", "get", "6f1c2a9e-58b4-4d9a-9f0e-2b7c1d3e4f50").status == 3)
        #expect(try cli.run("share", "get", "not-an-id").status == 5)
        #expect(try cli.run("share", "get", "https://evil-example.com/appclip?id=6f1c2a9e-58b4-4d9a-9f0e-2b7c1d3e4f50").status == 5)
        #expect(try cli.run("share", "create", "-", "--ttl", "45d", input: Self.card).status == 5)
        #expect(try cli.run("share", "create", "-", input: Data("hello".utf8)).status == 5)
        #expect(try cli.run("share", "create", "-", "--now", "yesterday", input: Self.card).status == 5)
        let refused = try cli.run("share", "create", dir.appending("missing.vcf"))
        #expect(refused.status == 5)
        #expect(refused.error == "sharelog: cannot read '\(dir.appending("missing.vcf"))': no such readable file\n")
        // None of the refusals wrote anything.
        #expect(try cli.run("stats", "--json").json["events"] as? Int == 0)
    }

    @Test func verifyExitsNonZeroOnAMismatch() throws {
        let dir = TemporaryDirectory()
        let cli = CLI(store: dir.appending("store"))
        _ = try cli.run("init")
        _ = try cli.run("share", "create", "-", input: Self.card)
        #expect(try cli.run("verify").status == 0)
        // Damage the projection behind the CLI's back (LMDB is multi-process).
        let store = try ShareStore.open(at: cli.store)
        let shares = store.schema.shares
        try store.environment.write { txn in
            try txn.withCursor(on: shares) { cursor in
                guard let entry = try cursor.first() else { return }
                var value = Array(entry.value)
                value[value.count - 3] ^= 0x20
                try cursor.replaceCurrent(with: value)
            }
        }
        let report = try cli.run("verify", "--json")
        #expect(report.status == 1)
        #expect(report.json["consistent"] as? Bool == false)
    }

    /// Tests/Fixtures, made with shell tools (its README.md says how).
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    @Test func getShowsThePreviewAndSavesTheDecodedPhoto() throws {
        let dir = TemporaryDirectory()
        let cli = CLI(store: dir.appending("store"))
        _ = try cli.run("init")
        // The card's photo is photo.jpg, base64-encoded by coreutils.
        let card = try Data(contentsOf: Self.fixtures.appendingPathComponent("card-with-photo.vcf"))
        let expectedPhoto = try Data(contentsOf: Self.fixtures.appendingPathComponent("photo.jpg"))
        #expect(expectedPhoto.count == 45_000)
        let id = try #require(try cli.run("share", "create", "-", "--json", input: card).json["id"] as? String)
        let photoPath = dir.appending("photo.jpg")
        let shown = try cli.run("share", "get", id, "--json", "--photo", photoPath)
        #expect(shown.status == 0)
        let preview = try #require(shown.json["preview"] as? [String: Any])
        #expect(preview["name"] as? String == "Adaeze Okafor")
        #expect(preview["title"] as? String == "Harbour Pilot")
        #expect(preview["organization"] as? String == "Lagos Lighthouse Co.")
        let photoJSON = preview["photo"] as? [String: Any]
        #expect(photoJSON?["mediaType"] as? String == "image/jpeg")
        #expect(photoJSON?["byteCount"] as? Int == 45_000)
        #expect(try Data(contentsOf: URL(fileURLWithPath: photoPath)) == expectedPhoto)
        #expect(preview["warnings"] as? [String] == [])
        #expect(try cli.run("share", "get", id).output == """
            id:       \(id)
            status:   live
            expires:  2026-12-08T10:00:00.000Z
            link:     https://cards.example.com/appclip?id=\(id)
            name:     Adaeze Okafor
            title:    Harbour Pilot
            company:  Lagos Lighthouse Co.
            photo:    image/jpeg, 45000 bytes

            """)
        #expect(try cli.run("share", "get", id, "--vcard").output == String(decoding: card, as: UTF8.self))
    }

    @Test func helpListsEveryCommand() throws {
        let dir = TemporaryDirectory()
        let help = try CLI(store: dir.path).run("help").output
        for command in ["init", "share create", "share get", "share revoke", "sweep", "compact", "verify", "stats", "log", "demo"] {
            #expect(help.contains("  \(command)"))
        }
    }
}
