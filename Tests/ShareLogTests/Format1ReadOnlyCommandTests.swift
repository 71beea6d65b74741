import Foundation
import Testing
import TestSupport
import TestTraits

/// The commands that only read never write (docs/CLI.md "Commands that only
/// read"; issue 28, item 7). On the committed format-1 store
/// (Tests/Fixtures/format1) `verify`, `stats`, `log`, `peers`, `share get`
/// and `clip last` refuse with exit 1 and a message that names `sharelog
/// upgrade`, and leave every file of the store as it was: they once
/// upgraded it in place. `upgrade`, and any command that writes, still
/// upgrade it. On a format-2 store they answer, and write nothing either:
/// not the high-water file a store of an older build lacks, not the new
/// identity a copy takes when it is next opened for writing.
@Suite(.hangDeadline, .ownThread) struct Format1ReadOnlyCommandTests {
    /// The fixture's time of `sharelog stats` in its README.
    static let now = "2026-12-01T13:00:00Z"
    /// The fixture's live share, its README's `live=`.
    static let live = "f119d597-a1a9-448f-8028-bcb3407e2f0e"
    static let replica = "c3deaad6-055c-4817-96a5-9e97c5469dba"

    /// Each read-only command, as a command line, and its name.
    static let readOnly: [(arguments: [String], name: String)] = [
        (["verify"], "verify"), (["stats"], "stats"), (["log"], "log"), (["log", "--after", "3", "--limit", "2"], "log"),
        (["peers"], "peers"), (["share", "get", live], "share get"),
        (["share", "get", "https://cards.example.com/appclip?id=\(live)", "--vcard"], "share get"), (["clip", "last"], "clip last"),
    ]

    static func refusal(_ command: String) -> String {
        "the store has format 1, and '\(command)' reads only format 3 and never upgrades a store (nothing was changed); "
            + "run 'sharelog upgrade' once, then 'sharelog \(command)' again"
    }

    @Test func theReadOnlyCommandsRefuseAFormat1StoreAndLeaveEveryFileAsItWas() throws {
        let directory = TemporaryDirectory()
        let cli = CLI(store: try Format1FixtureTests.copy(into: directory), now: Self.now)
        let before = try StoreFiles(of: cli.store)
        #expect(before.names == ["data.mdb"])
        // Twice: the first run of all makes lock.mdb, LMDB's reader table
        // (the only file a reader may add); from then on not even a name changes.
        for round in 1...2 {
            for (arguments, name) in Self.readOnly {
                let result = try cli.run(arguments: arguments)
                #expect(result.status == 1, "\(arguments), round \(round)")
                #expect(result.output == "", "\(arguments), round \(round)")
                #expect(result.error == "sharelog: \(Self.refusal(name))\n", "\(arguments), round \(round)")
                #expect(try StoreFiles(of: cli.store) == before.withLockFile, "\(arguments), round \(round)")
            }
        }
    }

    @Test func withJSONTheRefusalIsOneFailureObjectOnStandardError() throws {
        let directory = TemporaryDirectory()
        let cli = CLI(store: try Format1FixtureTests.copy(into: directory), now: Self.now)
        let before = try StoreFiles(of: cli.store)
        for (arguments, name) in [(["stats", "--json"], "stats"), (["verify", "--json"], "verify"), (["log", "--json"], "log")] {
            let result = try cli.run(arguments: arguments)
            #expect(result.status == 1, "\(arguments)")
            #expect(result.output == "", "\(arguments)")
            #expect(result.error == #"{"code":"failure","exitCode":1,"message":""# + Self.refusal(name) + "\"}\n", "\(arguments)")
        }
        #expect(try StoreFiles(of: cli.store) == before.withLockFile)
    }

    /// After the refusals, `upgrade` upgrades as ever, and the same
    /// commands then answer as the fixture's README says.
    @Test func upgradeStillUpgradesAndTheReadOnlyCommandsThenAnswer() throws {
        let directory = TemporaryDirectory()
        let cli = CLI(store: try Format1FixtureTests.copy(into: directory), now: Self.now)
        #expect(try cli.run("stats").status == 1)
        let upgraded = try cli.run("upgrade", "--json")
        #expect(upgraded.status == 0)
        #expect(upgraded.output == #"{"eventsReplayed":10,"fromVersion":1,"toVersion":3,"upgraded":true}"# + "\n")

        let stats = try cli.run("stats", "--json")
        #expect(stats.status == 0)
        #expect(stats.error == "")
        #expect(stats.json["replicaID"] as? String == Self.replica)
        #expect([stats.json["events"], stats.json["live"], stats.json["expired"], stats.json["pendingRedactions"]] as? [Int] == [10, 2, 4, 2])
        let verified = try cli.run("verify")
        #expect(verified.status == 0)
        #expect(verified.output.hasPrefix("ok: 10 events, "))
        #expect(CLI.jsonLines(try cli.run("log", "--json").output).count == 10)
        #expect(try cli.run("peers").output == "no peers yet: this store has not pulled from another replica\n")
        #expect(try cli.run("share", "get", Self.live, "--json").json["status"] as? String == "live")
        #expect(try cli.run("clip", "last").status == 3)
    }

    /// A command that writes upgrades first, and says so on standard error,
    /// as before.
    @Test func aCommandThatWritesStillUpgradesAndSaysSo() throws {
        let directory = TemporaryDirectory()
        let cli = CLI(store: try Format1FixtureTests.copy(into: directory), now: Self.now)
        let swept = try cli.run("sweep", "--json")
        #expect(swept.status == 0)
        #expect(swept.error == "sharelog: upgraded the store from format 1 to 3 (10 log entries replayed)\n")
        #expect(swept.json["expired"] as? Int == 0)
        let again = try cli.run("upgrade")
        #expect(again.output == "already format 3; nothing to do\n")
    }

    /// A format-2 copy of a store, without the high-water and commit signal
    /// files (as an older build left it) and in a new home (which an open for writing takes
    /// for a copy, and renews the id): the read-only commands answer, under
    /// the id the store has, and write nothing; the next command that
    /// writes makes the files and renews.
    @Test func onAFormat2CopyTheReadOnlyCommandsAnswerAndWriteNothing() throws {
        let directory = TemporaryDirectory()
        let original = CLI(store: try Format1FixtureTests.copy(into: directory), now: Self.now)
        #expect(try original.run("upgrade").status == 0)
        let cli = CLI(store: directory.appending("copy"), now: Self.now)
        try FileManager.default.createDirectory(atPath: cli.store, withIntermediateDirectories: false)
        try FileManager.default.copyItem(atPath: original.store + "/data.mdb", toPath: cli.store + "/data.mdb")
        let before = try StoreFiles(of: cli.store)
        #expect(before.names == ["data.mdb"])

        for (arguments, name) in Self.readOnly {
            let result = try cli.run(arguments: arguments)
            #expect(result.status == (name == "clip last" ? 3 : 0), "\(arguments): \(result.error)")
            #expect(try StoreFiles(of: cli.store) == before.withLockFile, "\(arguments)")
        }
        #expect(try cli.run("stats", "--json").json["replicaID"] as? String == Self.replica)
        #expect(try StoreFiles(of: cli.store) == before.withLockFile)

        #expect(try cli.run("sweep").status == 0)
        #expect(try StoreFiles(of: cli.store).names == ["commit.signal", "data.mdb", "high-water", "lock.mdb", "maintenance.lock"])
        let renewed = try cli.run("stats", "--json").json["replicaID"] as? String
        #expect(renewed != nil && renewed != Self.replica)
    }
}
