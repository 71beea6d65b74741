import Foundation
import Testing
import TestSupport
@testable import ShareLog
import TestTraits

/// The committed format-2 store (Tests/Fixtures/format2) becomes a format-3
/// store in place (docs/FORMAT.md "Format 2, and the upgrade"): once, in one
/// transaction, with two empty databases more, `schema` 3 and its log byte
/// for byte. Every share answers as make-store.sh made it to, values
/// written by hand from the script and the fixture's README; the bytes are
/// read by Debian's lmdb-utils (`Format1UpgradeTests`' helpers).
@Suite(.hangDeadline, .ownThread) struct Format2UpgradeTests {
    /// The fixture's time of `sharelog stats` in its README: 2026-12-01T13:00:00Z.
    static let now = "2026-12-01T13:00:00Z"

    static func card(_ name: String) -> [UInt8] {
        Array("BEGIN:VCARD\r\nVERSION:3.0\r\nN:\(name);Fixture;;;\r\nFN:Fixture \(name)\r\nORG:Format Two Ltd\r\nEND:VCARD\r\n".utf8)
    }

    /// A copy of the fixture in a temporary directory, so no test changes it.
    static func copy(into directory: TemporaryDirectory) throws -> String {
        let path = directory.appending("store")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: Format1FixtureTests.fixture.appendingPathComponent("format2/store/data.mdb").path, toPath: path + "/data.mdb")
        return path
    }

    static var options: ShareStore.Options {
        var options = ShareStore.Options()
        options.clock = FixedClock(Format1FixtureTests.at(180))
        return options
    }

    static let format2Databases = ["Main DB", "cursors", "eventIndex", "expiry", "log", "meta", "pendingRedactions", "shares"]

    @Test func openingUpgradesOnceAddingTwoEmptyDatabasesAndLeavesTheLogByteForByte() throws {
        let directory = TemporaryDirectory()
        let path = try Self.copy(into: directory)
        #expect(try Format1UpgradeTests.databases(at: path) == Self.format2Databases)
        #expect(try Format1UpgradeTests.meta(at: path)[Format1UpgradeTests.hex("schema")] == "00000002")
        let before = try Dictionary(uniqueKeysWithValues: ["log", "eventIndex", "shares", "expiry", "pendingRedactions", "cursors"].map {
            ($0, try Format1UpgradeTests.dump($0, at: path))
        })

        do {
            let store = try ShareStore.open(at: path, options: Self.options)
            #expect(store.upgrade == UpgradeReport(fromVersion: 2, toVersion: 3, eventsReplayed: 0))
            #expect(try store.verify().isConsistent)
            #expect(try store.tokens() == [])
            #expect(try store.idempotencyEntries() == [])
        }
        let again = try ShareStore.open(at: path, options: Self.options)
        #expect(again.upgrade == nil)

        #expect(try Format1UpgradeTests.databases(at: path) == [
            "Main DB", "cursors", "eventIndex", "expiry", "idempotency", "log", "meta", "pendingRedactions", "shares", "tokens",
        ])
        for (database, dump) in before { #expect(try Format1UpgradeTests.dump(database, at: path) == dump, "\(database)") }
        #expect(try Format1UpgradeTests.dump("tokens", at: path).contains("DATA=END"))
        #expect(try Format1UpgradeTests.meta(at: path)[Format1UpgradeTests.hex("schema")] == "00000003")
    }

    @Test func theUpgradedStoreAnswersEveryShareAsItWasMadeTo() throws {
        let directory = TemporaryDirectory()
        let store = try ShareStore.open(at: try Self.copy(into: directory), options: Self.options)
        let at = Format1FixtureTests.at
        let photoCard = try [UInt8](Data(contentsOf: Format1FixtureTests.fixture.appendingPathComponent("card-with-photo.vcf")))
        let live = try Format1FixtureTests.name("15efcd52-5d07-4668-a301-f3b388c3ccd2")
        let livePhoto = try Format1FixtureTests.name("c548c793-63b8-48db-b1c2-724282e6aa27")
        #expect(try store.fetch(live) == .live(Share(
            recordName: live, vCard: Self.card("Live"), createdAt: at(0), expiresAt: at(Format1FixtureTests.week))))
        #expect(try store.fetch(livePhoto) == .live(Share(
            recordName: livePhoto, vCard: photoCard, createdAt: at(0), expiresAt: at(Format1FixtureTests.week))))
        #expect(try store.fetch(Format1FixtureTests.name("30087a84-a639-41e0-bf27-5607d47b88e1")) == .expired(at: at(60), reason: .ttl))
        #expect(try store.fetch(Format1FixtureTests.name("3adff1d8-0845-4840-896a-4e16c6e2b73f")) == .expired(at: at(30), reason: .revoked))
        #expect(try store.fetch(Format1FixtureTests.name("ef172842-ae87-4d87-9de4-9e687ba8d4e1")) == .expired(at: at(152), reason: .ttl))
        #expect(try store.fetch(Format1FixtureTests.name("9278c4e8-8b04-4991-be7b-cba2e23bcfb3")) == .expired(at: at(100), reason: .revoked))
        let stats = try store.stats()
        #expect([stats.events, stats.live, stats.expired, stats.due, stats.pendingRedactions] == [10, 2, 4, 0, 2] as [Int])
        #expect(try store.verify().isConsistent)
        // The copy lives elsewhere than where make-store.sh made it, so the
        // open for writing took a new id (the README's is the fixture's own).
        #expect(store.identityRenewal != nil)
        #expect(store.replicaID != ReplicaID("c6a2470e-d6e8-4e72-ba67-77ee26820e16"))
    }

    @Test func aReadOnlyOpenRefusesToUpgradeAndWritesNothing() throws {
        let directory = TemporaryDirectory()
        let path = try Self.copy(into: directory)
        let before = try StoreFiles(of: path)
        var options = Self.options
        options.environment.readOnly = true
        #expect(throws: ShareLogError.upgradeRequired(found: 2)) { try ShareStore.open(at: path, options: options) }
        #expect(try StoreFiles(of: path) == before.withLockFile)
    }

    @Test func theReadOnlyCommandsRefuseAFormat2StoreAndUpgradeUpgradesIt() throws {
        let directory = TemporaryDirectory()
        let cli = SharelogCLI(store: try Self.copy(into: directory), now: Self.now)
        let before = try StoreFiles(of: cli.store)
        for command in [["stats"], ["verify"], ["token", "list"]] {
            let refused = try cli.run(arguments: command)
            #expect(refused.status == 1, "\(command)")
            #expect(refused.error == "sharelog: the store has format 2, and '\(command.joined(separator: " "))' reads only format 3 and never "
                + "upgrades a store (nothing was changed); run 'sharelog upgrade' once, then 'sharelog \(command.joined(separator: " "))' again\n")
        }
        #expect(try StoreFiles(of: cli.store) == before.withLockFile)

        let upgraded = try cli.run("upgrade", "--json")
        #expect(upgraded.status == 0)
        #expect(upgraded.text == #"{"eventsReplayed":0,"fromVersion":2,"toVersion":3,"upgraded":true}"# + "\n")
        let again = try cli.run("upgrade")
        #expect(again.text == "already format 3; nothing to do\n")
        let stats = try cli.run("stats", "--json")
        #expect([stats.json["events"], stats.json["live"], stats.json["expired"], stats.json["pendingRedactions"]] as? [Int] == [10, 2, 4, 2])
        #expect(try cli.run("token", "list").text == "no tokens yet: 'sharelog token create --name NAME' makes one\n")
    }

    @Test func aTokenCommandThatWritesUpgradesFirstAndSaysSo() throws {
        let directory = TemporaryDirectory()
        let cli = SharelogCLI(store: try Self.copy(into: directory), now: Self.now)
        let created = try cli.run("token", "create", "--name", "ios-app", "--json")
        #expect(created.status == 0)
        #expect(created.error == "sharelog: upgraded the store from format 2 to 3 (0 log entries replayed)\n")
        #expect(created.json["name"] as? String == "ios-app")
        #expect(try cli.run("verify").status == 0)
    }
}
