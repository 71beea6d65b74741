import CrashHarness
import Foundation
import Glibc
import Testing
import TestSupport
import ShareLog
import TestTraits

/// The format-3 upgrade of the committed format-2 store
/// (Tests/Fixtures/format2) under SIGKILL (docs/RELIABILITY.md "Upgrade
/// under kill -9"): `sharelog upgrade` killed at seeded moments of its run
/// leaves schema 2 (with or without the two new databases, empty, that the
/// open's first commit makes) or schema 3 with exactly format 3's
/// databases, never another mix; and either way the store then opens,
/// upgrading if still format 2, with its log byte for byte as before, every
/// share answering as the fixture's README says, no token, and `verify`
/// consistent. The upgrade's own transaction is tiny, so most kills land
/// before or after it: what this holds is that no moment leaves a mix.
@Suite(.hangDeadline, .ownThread) struct Format2UpgradeCrashTests {
    static let sharelog = ExternalCommand.built("sharelog")
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/format2/store/data.mdb").path
    static let format2 = ["cursors", "eventIndex", "expiry", "log", "meta", "pendingRedactions", "shares"]
    static let format3 = ["cursors", "eventIndex", "expiry", "idempotency", "log", "meta", "pendingRedactions", "shares", "tokens"]

    /// Where a kill left a copy, by lmdb-utils alone.
    enum Seen: Hashable { case before, during, after }

    static func copy(to directory: TemporaryDirectory, named name: String) throws -> String {
        let path = directory.appending(name)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: fixture, toPath: path + "/data.mdb")
        return path
    }

    static func upgrade(_ path: String) throws -> Subprocess {
        try Subprocess(sharelog, ["--store", path, "--now", "2026-12-01T13:00:00Z", "upgrade", "--json"], environment: [:])
    }

    static func seen(at path: String) throws -> Seen {
        let databases = try LMDBUtilities.databases(at: path), schema = try LMDBUtilities.schema(at: path)
        switch (schema, databases) {
        case ("00000002", format2): return .before
        case ("00000002", (format2 + ["idempotency", "tokens"]).sorted()): return .during
        case ("00000003", format3): return .after
        default: throw CrashViolation("schema \(schema ?? "absent") with databases \(databases.joined(separator: ", "))")
        }
    }

    /// Reopens the copy and checks it against the fixture's README.
    static func check(_ path: String, seen: Seen, log: String) throws {
        var options = ShareStore.Options()
        options.clock = FixedClock(Timestamp(milliseconds: 1_796_119_200_000 + 180 * 60_000))
        let store = try ShareStore.open(at: path, options: options)
        let upgrade = store.upgrade.map { "from \($0.fromVersion) to \($0.toVersion), \($0.eventsReplayed) replayed" }
        #expect(upgrade == (seen == .after ? nil : "from 2 to 3, 0 replayed"), "\(seen)")
        #expect(try store.verify().isConsistent)
        let stats = try store.stats()
        #expect([stats.events, stats.live, stats.expired, stats.due, stats.pendingRedactions] == [10, 2, 4, 0, 2] as [Int])
        let live = try #require(RecordName("15efcd52-5d07-4668-a301-f3b388c3ccd2"))
        let card = "BEGIN:VCARD\r\nVERSION:3.0\r\nN:Live;Fixture;;;\r\nFN:Fixture Live\r\nORG:Format Two Ltd\r\nEND:VCARD\r\n"
        let answer = try store.fetch(live)
        if case .live(let share) = answer {
            #expect(share.vCard == Array(card.utf8))
            #expect(share.expiresAt == Timestamp(milliseconds: 1_796_119_200_000 + 7 * 86_400_000))
        } else {
            Issue.record("the live share answers \(answer)")
        }
        #expect(try store.tokens() == [])
        store.close()
        #expect(try LMDBUtilities.dump("log", at: path) == log)
        #expect(try LMDBUtilities.databases(at: path) == format3)
        #expect(try LMDBUtilities.schema(at: path) == "00000003")
    }

    @Test func killingTheUpgradeAtAnyMomentLeavesFormat2OrFormat3() throws {
        let directory = TemporaryDirectory()
        let log = try LMDBUtilities.dump("log", at: try Self.copy(to: directory, named: "fixture"))
        // One whole run, timed, to bound the delays.
        let unkilled = try Self.copy(to: directory, named: "unkilled")
        let started = ContinuousClock.now
        let outcome = try Self.upgrade(unkilled).finish(timeout: .seconds(60))
        let microseconds = max(1, Int((ContinuousClock.now - started) / .microseconds(1)))
        #expect(outcome.status == 0 && !outcome.signaled)
        try Self.check(unkilled, seen: .after, log: log)

        var random = SeededGenerator(seed: 32)
        var counts: [Seen: Int] = [:]
        for kill in 0..<20 {
            let copy = try Self.copy(to: directory, named: "kill-\(kill)")
            let child = try Self.upgrade(copy)
            let end = ContinuousClock.now.advanced(by: .microseconds(Int.random(in: 0...microseconds * 5 / 4, using: &random)))
            while child.isRunning, ContinuousClock.now < end { usleep(100) }
            child.kill()
            _ = try child.finish(timeout: .seconds(60))
            let seen = try Self.seen(at: copy)
            counts[seen, default: 0] += 1
            try Self.check(copy, seen: seen, log: log)
        }
        print("Format2UpgradeCrashTests: 20 kills: \(counts[.before] ?? 0) before the open's first commit, "
            + "\(counts[.during] ?? 0) after it, \(counts[.after] ?? 0) after the upgrade")
    }
}
