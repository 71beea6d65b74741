import Foundation
import Testing
import TestSupport
@testable import ShareLog
import TestTraits

/// The committed format-1 store (Tests/Fixtures/format1) becomes a format-3
/// store in place (docs/FORMAT.md "Format 1, and the upgrade"), once, with
/// its log untouched. The bytes before and after are read by Debian's
/// lmdb-utils, not by ShareLog; every expected value is written by hand from
/// the fixture's README and make-store.sh. `Format1FixtureTests` pins the
/// answers the upgraded store gives.
@Suite(.hangDeadline) struct Format1UpgradeTests {
    /// The fixture's time of `sharelog stats` in its README: 2026-12-01T13:00:00Z.
    static var options: ShareStore.Options {
        var options = ShareStore.Options()
        options.clock = FixedClock(Format1FixtureTests.at(180))
        return options
    }

    /// Runs an lmdb-utils program (`mdb_dump`, `mdb_stat`) and returns what
    /// it printed; it must succeed.
    static func tool(_ name: String, _ arguments: String...) throws -> String {
        let outcome = try Subprocess.run("/usr/bin/\(name)", arguments, environment: CLI.inheritedEnvironment, timeout: .seconds(60))
        #expect(outcome.status == 0, "\(name) \(arguments): \(String(decoding: outcome.error, as: UTF8.self))")
        return String(decoding: outcome.output, as: UTF8.self)
    }

    /// `mdb_dump -s NAME` without the two header lines that describe the
    /// environment rather than the database: `maxreaders` comes from
    /// whichever process made `lock.mdb` (126 for lmdb-utils, 510 for
    /// ShareLog), and `mapsize` may grow.
    static func dump(_ database: String, at path: String) throws -> String {
        try tool("mdb_dump", "-s", database, path).split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("maxreaders=") && !$0.hasPrefix("mapsize=") }.joined(separator: "\n")
    }

    /// The databases `mdb_stat -a` lists, in its order.
    static func databases(at path: String) throws -> [String] {
        try tool("mdb_stat", "-a", path).split(separator: "\n")
            .compactMap { $0.hasPrefix("Status of ") ? String($0.dropFirst("Status of ".count)) : nil }
    }

    /// `meta` as `mdb_dump -s meta` prints it: hex key → hex value.
    static func meta(at path: String) throws -> [String: String] {
        let lines = try tool("mdb_dump", "-s", "meta", path).split(separator: "\n").map(String.init)
        let body = lines.drop { $0 != "HEADER=END" }.dropFirst().prefix { $0 != "DATA=END" }.map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(body.count % 2 == 0)
        return Dictionary(uniqueKeysWithValues: stride(from: 0, to: body.count - 1, by: 2).map { (body[$0], body[$0 + 1]) })
    }

    static func dataFile(_ path: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: (path as NSString).appendingPathComponent("data.mdb")))
    }

    /// "schema", "replica", … in hex, as `mdb_dump` prints keys.
    static func hex(_ key: String) -> String { key.utf8.map { String(format: "%02x", $0) }.joined() }

    @Test func openingUpgradesOnceAndLeavesTheLogByteForByte() throws {
        let directory = TemporaryDirectory()
        let path = try Format1FixtureTests.copy(into: directory)
        #expect(try Self.databases(at: path)
            == ["Main DB", "eventIndex", "expiry", "log", "meta", "pendingRedactions", "recordCreates", "shares"])
        #expect(try Self.meta(at: path)[Self.hex("schema")] == "00000001")
        let logBefore = try Self.dump("log", at: path)

        do {
            let store = try ShareStore.open(at: path, options: Self.options)
            #expect(store.upgrade == UpgradeReport(fromVersion: 1, toVersion: 3, eventsReplayed: 10))
            #expect(try store.verify().isConsistent)
        }
        let again = try ShareStore.open(at: path, options: Self.options)
        #expect(again.upgrade == nil)
        #expect(try again.verify().isConsistent)

        #expect(try Self.dump("log", at: path) == logBefore)
        #expect(try Self.databases(at: path)
            == ["Main DB", "cursors", "eventIndex", "expiry", "idempotency", "log", "meta", "pendingRedactions", "shares", "tokens"])
        // Identity and origin counter as the README printed them; 2 shares
        // pending (live, livePhoto) and 4 with an end logged; and where the
        // store now lives (as stat reports it), so that the upgrade is not
        // mistaken for a copy and the id kept.
        let home = try #require(StoreHome.hex(of: path))
        #expect(try Self.meta(at: path) == [
            Self.hex("data-file"): home,
            Self.hex("schema"): "00000003",
            Self.hex("replica"): "c3deaad6055c481796a59e97c5469dba",
            Self.hex("epoch"): "066b60e0cbdf4c0995f2d5cb1c0a943c",
            Self.hex("origin-sequence"): "000000000000000a",
            Self.hex("live-count"): "0000000000000002",
            Self.hex("expired-count"): "0000000000000004",
        ])
    }

    @Test func aReadOnlyOpenRefusesToUpgradeAndWritesNothing() throws {
        let directory = TemporaryDirectory()
        let path = try Format1FixtureTests.copy(into: directory)
        let before = try Self.dataFile(path)
        var options = Self.options
        options.environment.readOnly = true
        #expect(throws: ShareLogError.upgradeRequired(found: 1)) { try ShareStore.open(at: path, options: options) }
        #expect(try Self.dataFile(path) == before)
    }

    @Test func sharelogUpgradeUpgradesOnceAndSaysWhatItDid() throws {
        let directory = TemporaryDirectory()
        let cli = CLI(store: try Format1FixtureTests.copy(into: directory), now: "2026-12-01T13:00:00Z")
        let first = try cli.run("upgrade", "--json")
        #expect(first.status == 0)
        #expect(first.output == #"{"eventsReplayed":10,"fromVersion":1,"toVersion":3,"upgraded":true}"# + "\n")
        #expect(first.error == "")
        let second = try cli.run("upgrade", "--json")
        #expect(second.status == 0)
        #expect(second.output == #"{"eventsReplayed":0,"fromVersion":3,"toVersion":3,"upgraded":false}"# + "\n")
        #expect(second.error == "")
    }

    @Test func sharelogUpgradeInTextSaysTheSame() throws {
        let directory = TemporaryDirectory()
        let cli = CLI(store: try Format1FixtureTests.copy(into: directory), now: "2026-12-01T13:00:00Z")
        let first = try cli.run("upgrade")
        #expect(first.status == 0)
        #expect(first.output == "upgraded from format 1 to 3: 10 log entries replayed, the log unchanged\n")
        let second = try cli.run("upgrade")
        #expect(second.status == 0)
        #expect(second.output == "already format 3; nothing to do\n")
    }

    /// Commands that only read refuse a format-1 store instead
    /// (`Format1ReadOnlyCommandTests`).
    @Test func anyCommandThatWritesToAFormat1StoreUpgradesItAndSaysSoOnStandardError() throws {
        let directory = TemporaryDirectory()
        let cli = CLI(store: try Format1FixtureTests.copy(into: directory), now: "2026-12-01T13:00:00Z")
        let first = try cli.run("sweep", "--json")
        #expect(first.status == 0)
        #expect(first.error == "sharelog: upgraded the store from format 1 to 3 (10 log entries replayed)\n")
        let stats = try cli.run("stats", "--json")
        #expect(stats.status == 0)
        #expect(stats.error == "")
        // The README's counts at this time.
        #expect(stats.json["events"] as? Int == 10)
        #expect(stats.json["live"] as? Int == 2)
        #expect(stats.json["expired"] as? Int == 4)
        #expect(stats.json["pendingRedactions"] as? Int == 2)
        let second = try cli.run("sweep", "--json")
        #expect(second.status == 0)
        #expect(second.error == "")
    }
}
