@testable import CrashHarness
import Foundation
import LMDB
import Testing
import TestSupport
import ShareLog
import TestTraits

/// The format-1 upgrade under SIGKILL (docs/RELIABILITY.md "Upgrade under
/// kill -9"): a kill at any moment of `sharelog upgrade` leaves format 1 or
/// format 3, never a mix, and the store then opens with its log byte for
/// byte as before and every share answering as the format-1 store's plan
/// says. The store is a few thousand shares written by `Format1StoreWriter`,
/// so that kills land inside the upgrade's transaction.
@Suite(.hangDeadline, .ownThread) struct UpgradeCrashTests {
    static let sharelog = URL(fileURLWithPath: ExternalCommand.built("sharelog"))

    @Test func theWritersChecksumIsZlibsCRC32() {
        // The check value of CRC-32/ISO-HDLC, which zlib and Python's zlib.crc32 compute.
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
    }

    @Test func theWrittenFormat1StoreUpgradesToWhatItsPlanSays() throws {
        let directory = TemporaryDirectory()
        let plan = Format1Store(seed: 11, shareCount: 1000)
        // The plan has every kind of share the upgrade must carry over.
        let kinds = Set(plan.shares.map { share -> String in
            let fate = share.revokedAt == nil ? "\(share.fate)" : "revoked"
            return share.compacted ? "\(fate), compacted" : fate
        })
        #expect(kinds == ["live", "due", "swept", "swept, compacted", "revoked", "revoked, compacted"])
        #expect(plan.shares.contains { $0.card.count > 40_000 && $0.fate == .live })
        // More than one step of the replay (`StoreUpgrade.chunkSize`, 1000 entries).
        #expect(plan.log.count > 1000)

        let original = directory.appending("format1")
        try Format1StoreWriter.write(plan, to: original)
        #expect(try UpgradeAudit.seen(at: original) == .format1(withNewDatabases: false))
        #expect(try LMDBUtilities.databases(at: original)
            == ["eventIndex", "expiry", "log", "meta", "pendingRedactions", "recordCreates", "shares"])
        let copy = directory.appending("copy")
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: original + "/data.mdb", toPath: copy + "/data.mdb")
        let audit = UpgradeAudit(plan: plan, log: try LMDBUtilities.dump("log", at: original))
        #expect(audit.check(copy, upgrading: true) == [])
        // Opened again: nothing left to upgrade, and the same answers.
        #expect(audit.check(copy, upgrading: false) == [])
    }

    @Test func aStoreThatMixesTheTwoFormatsIsCalledBroken() throws {
        let directory = TemporaryDirectory()
        let path = directory.appending("mixed")
        try Format1StoreWriter.write(Format1Store(seed: 3, shareCount: 20), to: path)
        do {
            // Schema 3 over format 1's databases, as an upgrade split into two commits could leave it.
            let environment = try Environment.open(at: path, databases: Format1StoreWriter.databases)
            let meta = try environment.database("meta")
            try environment.write { txn in try txn.put([0, 0, 0, 3] as [UInt8], forKey: Array("schema".utf8), in: meta) }
        }
        #expect(try UpgradeAudit.seen(at: path)
            == .broken("schema 00000003 with databases eventIndex, expiry, log, meta, pendingRedactions, recordCreates, shares"))
    }

    @Test func killingTheUpgradeAtAnyMomentLeavesFormat1OrFormat3() throws {
        let directory = TemporaryDirectory()
        var options = UpgradeCrashOptions()
        options.kills = 20
        options.seed = 11
        options.shares = 3000
        options.directory = directory.appending("stores")
        let report = try UpgradeCrashRunner(options: options, sharelog: Self.sharelog).run()
        print(report.text)
        #expect(report.violations == [], "\(report.text)")
        #expect(report.kills == 20)
        #expect(report.before + report.during + report.after + report.exited == 20)
    }

    @Test func theHarnessCommandRunsUpgradeKillsAndReportsItsNumbers() throws {
        let result = try ExternalCommand.run(ExternalCommand.built("sharelog-crash"), [
            "upgrade", "--kills", "2", "--shares", "200", "--seed", "5", "--json",
        ])
        #expect(result.status == 0, "\(result.output)\(result.error)")
        let report = try JSONDecoder().decode(UpgradeCrashReport.self, from: Data(result.output.utf8))
        #expect(report.passed && report.kills == 2 && report.seed == 5)
        #expect(report.logEntries == Format1Store(seed: 5, shareCount: 200).log.count)
    }
}
