@testable import CrashHarness
import Foundation
import LMDB
import Testing
import TestSupport
import TestTraits

/// Power loss (docs/RELIABILITY.md "Power loss"): a writer runs under the
/// LD_PRELOAD shim, and every file state a power cut could leave behind its
/// journal is checked. `.full` keeps every acknowledged operation in every
/// state; a shim that drops liblmdb's sync of the data pages (the meta page
/// then reaches the disk before the pages it points to) is caught.
@Suite(.hangDeadline) struct PowerCutTests {
    static let executable = URL(fileURLWithPath: ExternalCommand.built("sharelog-crash"))
    static let shim = URL(fileURLWithPath: ExternalCommand.built("libsharelog-powercut.so"))

    static func run(_ durability: Environment.Durability, dropDataSync: Bool = false, states: Int = 60) throws -> PowerCutReport {
        var options = PowerCutOptions()
        options.durability = durability
        options.operations = 10
        options.states = states
        options.seed = 7
        options.dropDataSync = dropDataSync
        // The runner keeps the store of a broken run; the directory goes when the test ends.
        let directory = TemporaryDirectory()
        options.directory = directory.path
        return try withExtendedLifetime(directory) { try PowerCutRunner(options: options, executable: executable, shim: shim).run() }
    }

    @Test func everyStateAPowerCutLeavesKeepsEveryAcknowledgedOperationWithFullDurability() throws {
        let report = try Self.run(.full)
        #expect(report.broken == [], "\(report.text)")
        #expect(report.acknowledged == 10)
        #expect(report.checked > 0)
        #expect(report.intact == report.checked)
        #expect(report.passed)
    }

    @Test func aMetaPageSyncedBeforeItsDataIsCaught() throws {
        let report = try Self.run(.full, dropDataSync: true)
        #expect(report.droppedSyncs > 0)
        #expect(!report.passed)
        #expect(report.brokenCount > 0, "\(report.text)")
        #expect(report.broken.allSatisfy { $0.verdict == .corrupt || $0.verdict == .lost })
    }

    @Test func noMetaSyncLosesAtMostTheLastCommitAndNeverCorrupts() throws {
        let report = try Self.run(.noMetaSync)
        #expect(report.broken == [], "\(report.text)")
        #expect(report.lostMore == 0)
        #expect(report.corrupt == 0)
        // The loss is real, and seen: the same states break `.full`'s promise.
        #expect(report.lostLastCommit > 0, "\(report.text)")
        #expect(report.passed)
    }

    /// A journal made by hand, with 4-byte sectors, and every state written
    /// out by hand from the model: a sector holds its synced bytes or any
    /// version written since; a sync makes durable what it covered at entry.
    @Test func theStatesOfAHandWrittenJournalAreTheModelsStates() throws {
        let bytes = Array("AAAABBBBCCCCDDDDEEEEFFFF".utf8)
        func change(_ sector: Int, _ letter: Int) -> PowerCutJournal.Change { .init(sector: sector, at: letter * 4) }
        // As the shim writes them: a snapshot before each sync's entry and
        // each line, and after each write.
        let journal = PowerCutJournal(sectorSize: 4, records: [
            .snapshot(length: 8, changes: [change(0, 0), change(1, 1)]),  // AAAA BBBB
            .syncBegin(.init(.baseline)), .syncEnd(errno: 0),
            .snapshot(length: 8, changes: [change(1, 2)]),  // sector 1: CCCC
            .syncBegin(.init(.msync, flags: 4, offset: 0, length: 8)),  // MS_SYNC of sectors 0 and 1
            .write(offset: 4, length: 4), .snapshot(length: 8, changes: [change(1, 5)]),  // sector 1: FFFF while the sync runs
            .syncEnd(errno: 0),
            .snapshot(length: 8, changes: []),
            .syncBegin(.init(.msync, flags: 1, offset: 0, length: 8)), .syncEnd(errno: 0),  // MS_ASYNC: nothing durable
            .snapshot(length: 8, changes: []), .line("ack\n"),
            .snapshot(length: 12, changes: [change(0, 3), change(2, 4)]),  // sector 0: DDDD, sector 2: EEEE
            .syncBegin(.init(.msync, flags: 4, offset: 8, length: 4)), .syncEnd(errno: 0),  // MS_SYNC of sector 2 alone
            .snapshot(length: 12, changes: []),
        ], bytes: bytes)
        let space = try PowerCutSpace(journal)
        #expect(space.points.count == 5)
        #expect(space.completedSyncs == 3)
        #expect(space.points.map(\.record) == [3, 6, 8, 13, 16])
        #expect(space.points.map(\.lines) == [0, 0, 0, 1, 1])
        // Lines printed when the last sync that returned before each point began (MS_ASYNC is none).
        #expect(space.points.map(\.linesBeforeLastSync) == [0, 0, 0, 0, 1])
        func text(_ point: Int, _ kind: PowerCutState.Kind) -> String {
            String(decoding: space.bytes(of: PowerCutState(point: point, kind: kind)).map { $0 == 0 ? UInt8(ascii: ".") : $0 }, as: UTF8.self)
        }
        // Point 0: sector 1 written, nothing synced since the baseline.
        #expect([text(0, .none), text(0, .all)] == ["AAAABBBB", "AAAACCCC"])
        // Point 1: sector 1 written again while the sync runs.
        #expect([text(1, .none), text(1, .prefix(1)), text(1, .all)] == ["AAAABBBB", "AAAACCCC", "AAAAFFFF"])
        // Point 2: the sync returned: durable are the bytes at its entry (CCCC), not FFFF.
        #expect([text(2, .none), text(2, .all)] == ["AAAACCCC", "AAAAFFFF"])
        // Point 3: after MS_ASYNC (nothing durable) and the line, sector 0 and a new sector 2 written, the file longer.
        #expect([text(3, .none), text(3, .prefix(1)), text(3, .prefix(2)), text(3, .all)]
            == ["AAAACCCC", "AAAAFFFF", "DDDDFFFF....", "DDDDFFFFEEEE"])
        let subsets = Set((0..<400).map { text(3, .subset(UInt64($0))) })
        #expect(subsets == [
            "AAAACCCC", "AAAAFFFF", "DDDDCCCC", "DDDDFFFF",
            "AAAACCCC....", "AAAAFFFF....", "DDDDCCCC....", "DDDDFFFF....",
            "AAAACCCCEEEE", "AAAAFFFFEEEE", "DDDDCCCCEEEE", "DDDDFFFFEEEE",
        ])
        // Point 4: a sync of sector 2 alone makes it and the length durable, not the rest.
        #expect([text(4, .none), text(4, .prefix(1)), text(4, .all)] == ["AAAACCCCEEEE", "AAAAFFFFEEEE", "DDDDFFFFEEEE"])
    }

    @Test func eachModesPromise() {
        func outcome(_ verdict: PowerCutOutcome.Verdict, lost: Int = 0) -> PowerCutOutcome {
            var outcome = PowerCutOutcome(index: 0, state: .init(point: 0, kind: .none), acknowledged: 5, verdict: verdict, lost: lost)
            outcome.unsynced = 2
            return outcome
        }
        let outcomes = [outcome(.intact), outcome(.lost, lost: 2), outcome(.lost, lost: 3), outcome(.corrupt)]
        #expect(outcomes.map(PowerCutPromise(.full).keeps) == [true, false, false, false])
        #expect(outcomes.map(PowerCutPromise(.noMetaSync).keeps) == [true, true, false, false])
        #expect(outcomes.map(PowerCutPromise(.noSync).keeps) == [true, true, true, true])
    }
}
