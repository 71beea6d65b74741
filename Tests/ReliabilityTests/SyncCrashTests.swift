@testable import CrashHarness
import Foundation
import Testing
import TestSupport
import ShareLog
import TestTraits

/// The sync crash run (docs/RELIABILITY.md "Crash injection on a sync
/// pair"): a few kills of the server, the syncing client and the writers of
/// a pair of main stores leave both stores holding every acknowledged
/// operation once; and the checks catch what they exist to catch, a fault
/// planted between a round's convergence and its checks.
@Suite(.serialized, .hangDeadline, .ownThread) struct SyncCrashTests {
    static let sharelog = URL(fileURLWithPath: ExternalCommand.built("sharelog"))
    static let crash = URL(fileURLWithPath: ExternalCommand.built("sharelog-crash"))
    /// Every fetch and the planted writes happen at this time (`SyncPair.now`).
    static let now = Timestamp(iso8601: "2030-01-02T00:00:00Z")!

    static func runner(kills: Int, seed: UInt64, in directory: TemporaryDirectory) -> SyncCrashRunner {
        var options = SyncCrashOptions()
        options.kills = kills
        options.seed = seed
        options.directory = directory.appending("pairs")
        return SyncCrashRunner(options: options, executable: crash, sharelog: sharelog)
    }

    /// Opens one side of the pair at `now`.
    static func open(_ path: String) throws -> ShareStore {
        var options = ShareStore.Options()
        options.clock = FixedClock(now)
        return try ShareStore.open(at: path, options: options)
    }

    /// The id of the last event in `store`'s log.
    static func lastEventID(_ store: ShareStore) throws -> EventID {
        try #require(try store.events(after: try store.lastPosition() - 1).first?.event.id)
    }

    @Test func killingEitherSideLosesNoAcknowledgedOperationAndDoublesNone() throws {
        let directory = TemporaryDirectory("sync")
        let report = try Self.runner(kills: 4, seed: 3, in: directory).run()
        print(report.text)
        #expect(report.violations == [], "\(report.text)")
        #expect(report.kills == 4 && report.rounds == 4 && report.pairs == 1)
        #expect(report.killsByVictim.values.reduce(0, +) == 4)
    }

    @Test func aShareRevokedOnOneSideBehindTheWritersBacksIsCaught() throws {
        let directory = TemporaryDirectory("sync")
        var runner = Self.runner(kills: 4, seed: 5, in: directory)
        var planted: (name: String, card: Int, number: Int, expiresAt: Int64, event: EventID)?
        runner.plant = { plant in
            guard plant.round == 1 else { return }
            // A share B's writer created and nobody revoked, by its ack lines.
            let revoked = Set(plant.history.acknowledged.compactMap { $0.operation.kind == "revoke" ? $0.operation.target : nil }
                + plant.history.inDoubt.compactMap { $0.kind == "revoke" ? $0.target : nil })
            let ack = try #require(plant.history.acknowledged.last {
                $0.operation.slot == 1 && $0.operation.kind == "create" && !revoked.contains($0.result.recordName ?? "")
            })
            let name = try #require(ack.result.recordName)
            let store = try Self.open(plant.pathA)
            try store.revoke(try #require(RecordName(name)))
            planted = (name, try #require(ack.operation.card), ack.operation.number, try #require(ack.result.expiresAt),
                       try Self.lastEventID(store))
        }
        let report = try runner.run()
        let fault = try #require(planted, "the plant never ran: \(report.text)")
        let expires = Timestamp(milliseconds: fault.expiresAt)
        #expect(report.violations == [
            "A: share \(fault.name) ended at 2030-01-02T00:00:00.000Z (revoked), but no writer began a revoke of it",
            "A: acknowledged share \(fault.name) (card \(fault.card), slot 1 operation \(fault.number)) answers "
                + "expired at 2030-01-02T00:00:00.000Z (revoked), not live with its card until \(expires)",
            "A holds 1 events B lacks, such as \(fault.event)",
        ])
        #expect(report.kills == 2)
        #expect(report.failedPair == directory.appending("pairs/pair-0"))
    }

    @Test func aCardCreatedAgainOnOneSideIsCaughtAsThereTwice() throws {
        let directory = TemporaryDirectory("sync")
        var runner = Self.runner(kills: 3, seed: 9, in: directory)
        var planted: (first: String, second: String, card: Int, event: EventID)?
        runner.plant = { plant in
            guard plant.round == 0 else { return }
            let ack = try #require(plant.history.acknowledged.first { $0.operation.slot == 0 && $0.operation.kind == "create" })
            let card = try #require(ack.operation.card)
            let store = try Self.open(plant.pathB)
            let again = try store.create(vCard: CrashCard.bytes(index: card), ttl: .seconds(3600))
            planted = (try #require(ack.result.recordName), again.recordName.description, card, try Self.lastEventID(store))
        }
        let report = try runner.run()
        let fault = try #require(planted, "the plant never ran: \(report.text)")
        #expect(report.violations == [
            "B: card \(fault.card) is there twice, as share \(fault.first) and share \(fault.second)",
            "B holds 1 events A lacks, such as \(fault.event)",
        ])
        #expect(report.kills == 1)
    }

    @Test func theHarnessCommandRunsSyncKillsAndReportsItsNumbers() throws {
        let result = try ExternalCommand.run(Self.crash.path, ["sync", "--kills", "2", "--seed", "5", "--json"])
        #expect(result.status == 0, "\(result.output)\(result.error)")
        let report = try JSONDecoder().decode(SyncCrashReport.self, from: Data(result.output.utf8))
        #expect(report.passed && report.kills == 2 && report.seed == 5 && report.rounds == 2)
    }
}
