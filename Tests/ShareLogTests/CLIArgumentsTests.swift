import Foundation
import Testing
import TestSupport
import TestTraits

/// The command line as docs/CLI.md promises it: options before or after
/// the positional arguments, an unknown option named, errors as JSON with
/// `--json`, help for every command, and a version (issue "The CLI keeps
/// every promise its docs make", items 4, 10, 11, 14, 15 and 16).
@Suite(.hangDeadline) struct CLIArgumentsTests {
    static let card = Data("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Jane Appleseed\r\nEND:VCARD\r\n".utf8)

    @Test func optionsMayComeBeforeThePositionalArguments() throws {
        let dir = TemporaryDirectory()
        let cli = CLI(store: dir.appending("store"), now: "2026-12-01T10:00:00Z")
        _ = try cli.run("init")
        let created = try cli.run("share", "create", "--ttl", "1d", "-", "--json", input: Self.card)
        #expect(created.status == 0, "\(created.error)")
        #expect(created.json["expiresAt"] as? String == "2026-12-02T10:00:00.000Z")
        let id = try #require(created.json["id"] as? String)
        let card = try cli.run("share", "get", "--vcard", id)
        #expect(card.status == 0, "\(card.error)")
        #expect(card.output == String(decoding: Self.card, as: UTF8.self))
        let written = try cli.run("--json", "share", "--ttl=2h", "create", "-", input: Self.card)
        #expect(written.json["expiresAt"] as? String == "2026-12-01T12:00:00.000Z")
    }

    @Test func anUnknownOptionIsNamedAndAnotherCommandsOptionIsSaidToBeSo() throws {
        let dir = TemporaryDirectory()
        let cli = CLI(store: dir.appending("store"))
        let verbose = try cli.run("--verbose")
        #expect(verbose.status == 2)
        #expect(verbose.error == "sharelog: unknown option --verbose; see 'sharelog help'\n")
        let misplaced = try cli.run("share", "get", "--ttl", "1d", "6f1c2a9e-58b4-4d9a-9f0e-2b7c1d3e4f50")
        #expect(misplaced.status == 2)
        #expect(misplaced.error == "sharelog: --ttl is not an option of 'share get'; see 'sharelog help'\n")
        let twice = try cli.run("share", "create", "-", "--ttl", "1d", "--ttl", "2d", input: Self.card)
        #expect(twice.status == 2)
        #expect(twice.error.contains("--ttl was given 2 times"))
        // Usage errors come before the store is opened: nothing was made.
        #expect(!FileManager.default.fileExists(atPath: dir.appending("store")))
    }

    @Test func withJSONAnErrorIsOneObjectOnStandardError() throws {
        let dir = TemporaryDirectory()
        let cli = CLI(store: dir.appending("store"))
        _ = try cli.run("init")
        let unknown = try cli.run("share", "get", "6f1c2a9e-58b4-4d9a-9f0e-2b7c1d3e4f50", "--json")
        #expect(unknown.status == 3)
        #expect(unknown.output == "")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(unknown.error.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["code", "exitCode", "message"])
        #expect(object["code"] as? String == "notFound")
        #expect(object["exitCode"] as? Int == 3)
        #expect((object["message"] as? String)?.contains("6f1c2a9e-58b4-4d9a-9f0e-2b7c1d3e4f50") == true)
        #expect(unknown.error.filter { $0 == "\n" }.count == 1)
        let usage = try cli.run("--json", "--verbose")
        #expect(usage.status == 2)
        let usageObject = try #require(try JSONSerialization.jsonObject(with: Data(usage.error.utf8)) as? [String: Any])
        #expect(usageObject["code"] as? String == "usage")
    }

    @Test func helpListsEveryExitCodeAndEachCommandHasItsOwn() throws {
        let dir = TemporaryDirectory()
        let cli = CLI(store: dir.appending("store"))
        let help = try cli.run("help")
        #expect(help.status == 0)
        #expect(help.output.contains("exit codes: 0 ok, 1 failure, 2 usage, 3 not found, 4 expired, 5 invalid input, 6 snapshot required (relay)"))
        let viaFlag = try cli.run("share", "create", "--help")
        let viaHelp = try cli.run("help", "share", "create")
        #expect(viaFlag.status == 0 && viaHelp.status == 0)
        #expect(viaFlag.output == viaHelp.output)
        #expect(viaFlag.output.hasPrefix(
            "usage: sharelog share create FILE|- [--ttl 7d] [--http BASE_URL --token-file F [--idempotency-key K] [--ca-file F]]\n"))
        // Options are aligned to the longest one's column.
        #expect(viaFlag.output.split(separator: "\n").contains {
            $0.hasPrefix("  --ttl 7d ") && $0.hasSuffix(" how long the share lives: a whole number of s, m, h or d, from 1 minute to 30 days")
        })
        let unknown = try cli.run("help", "share", "make")
        #expect(unknown.status == 2)
        #expect(unknown.error == "sharelog: unknown command 'share make'; see 'sharelog help'\n")
    }

    @Test func theVersionNamesTheFormatsThisBuildSpeaks() throws {
        let dir = TemporaryDirectory()
        let cli = CLI(store: dir.appending("store"))
        let version = try cli.run("--version")
        #expect(version.status == 0)
        #expect(version.output == "sharelog: store format 3, sync protocol 2\n")
        let json = try cli.run("--version", "--json")
        #expect(json.json["storeFormat"] as? Int == 3)
        #expect(json.json["syncProtocol"] as? Int == 2)
    }

    @Test func exitCodesAreTheDocumentedOnes() throws {
        let dir = TemporaryDirectory()
        let cli = CLI(store: dir.appending("store"))
        // A file that cannot be written is a failure (1), as everywhere.
        let keygen = try cli.run("keygen", dir.appending("no-such-directory/sync.key"))
        #expect(keygen.status == 1, "\(keygen.error)")
        #expect(keygen.error.hasPrefix("sharelog: cannot write the key file "))
        // A value outside an option's choices is a usage error (2).
        let role = try cli.run("sync", "--connect", "unix:\(dir.appending("s.sock"))", "--role", "other")
        #expect(role.status == 2)
        #expect(role.error == "sharelog: --role must be main or clip, not 'other'; see 'sharelog help'\n")
    }

    @Test func clipOpenTakesOnlyTheOptionsItsSynopsisShows() throws {
        let dir = TemporaryDirectory()
        let cli = CLI(store: dir.appending("clip"))
        let link = "https://cards.example.com/appclip?id=6f1c2a9e-58b4-4d9a-9f0e-2b7c1d3e4f50"
        for option in [["--stdio"], ["--heartbeat", "5"], ["--peer-timeout", "20"]] {
            let result = try cli.run(arguments: ["clip", "open", link] + option)
            #expect(result.status == 2, "\(option)")
            #expect(result.error == "sharelog: \(option[0]) is not an option of 'clip open'; see 'sharelog help'\n")
        }
        let stdio = try cli.run("clip", "open", "--connect", "stdio", link)
        #expect(stdio.status == 2)
        #expect(stdio.error.hasPrefix("sharelog: --connect: a clip fetches over sync from unix:PATH or exec:COMMAND"))
        #expect(!FileManager.default.fileExists(atPath: dir.appending("clip")))
    }

    @Test func relayKeyPrintsItsHourAsATime() throws {
        let dir = TemporaryDirectory()
        let cli = CLI(store: dir.appending("store"), now: "2026-12-01T10:30:00Z")
        let made = try cli.run("relay-key", dir.appending("stream.key"), "--json")
        #expect(made.status == 0, "\(made.error)")
        #expect(made.json["hour"] as? String == "2026-12-01T10:00:00.000Z")
    }

    /// Rough edges: a TTL out of range in the unit it was given, and a
    /// peer timeout that cannot outlast a heartbeat warned about.
    @Test func messagesSpeakTheUserUnits() throws {
        let dir = TemporaryDirectory()
        let cli = CLI(store: dir.appending("store"))
        _ = try cli.run("init")
        let ttl = try cli.run("share", "create", "-", "--ttl", "31d", input: Self.card)
        #expect(ttl.status == 5)
        #expect(ttl.error == "sharelog: a time to live of 31d is outside 1 minute to 30 days; use a value like 90m, 12h or 7d\n")
        // Zero, and a count the library would show in another unit, are
        // reported in the unit given too.
        for given in ["0d", "0h", "0m", "0s", "2592060s", "43201m"] {
            let refused = try cli.run("share", "create", "-", "--ttl", given, input: Self.card)
            #expect(refused.status == 5, "\(given): \(refused.error)")
            #expect(refused.error == "sharelog: a time to live of \(given) is outside 1 minute to 30 days; use a value like 90m, 12h or 7d\n")
        }
        let sync = try cli.run("sync", "--connect", "unix:\(dir.appending("none.sock"))", "--heartbeat", "5", "--peer-timeout", "5")
        #expect(sync.status == 1)
        #expect(sync.error.hasPrefix("sharelog: warning: --peer-timeout 5 is not above --heartbeat 5: "), "\(sync.error)")
    }
}
