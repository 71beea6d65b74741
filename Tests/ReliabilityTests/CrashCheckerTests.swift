import CrashHarness
import Foundation
import LMDB
import Testing
@testable import ShareLog

/// The crash checker must catch what it exists to catch: these tests build a
/// history by hand, make the store disagree with it, and expect a violation.
/// The last test runs the real harness, with a few kills.
@Suite struct CrashCheckerTests {
    let workload = ShareWorkload()

    /// A store and a history of slot 0's operations, performed for real.
    struct Session {
        let fixture: ReliabilityStore
        var history = CrashHistory()
        var number = 0
        var state = ShareWorkload().makeWriterState()

        init(label: String = #function) throws { fixture = try ReliabilityStore(label: label) }

        /// Performs `kind` through the workload at the next step and records it.
        @discardableResult
        mutating func perform(_ kind: String, ttl: Int64 = 600, target: String? = nil, card: Int? = nil,
                              acknowledge: Bool = true) throws -> CrashResult {
            let time = ReliabilityStore.start + Int64(number) * ShareWorkload().timeStep
            let operation = CrashOperation(slot: 0, number: number, kind: kind, time: time,
                                           card: kind == "create" ? number : card, ttlSeconds: kind == "create" ? ttl : nil,
                                           target: target)
            number += 1
            fixture.clock.set(time)
            let result = try ShareWorkload().perform(operation, on: fixture.store, state: &state)
            try history.record(CrashLine(.begin, operation), slot: 0)
            if acknowledge {
                try history.record(CrashLine(.ack, operation, result: result), slot: 0)
            } else {
                history.writerDied(slot: 0)
            }
            return result
        }

        /// Records a begin and an ack for an operation that never ran.
        mutating func pretend(_ operation: CrashOperation, result: CrashResult) throws {
            try history.record(CrashLine(.begin, operation), slot: 0)
            try history.record(CrashLine(.ack, operation, result: result), slot: 0)
            number = operation.number + 1
        }
    }

    func violations(_ session: Session) throws -> [String] {
        try workload.checkAll(session.history, in: session.fixture.store).violations.map(\.description)
    }

    @Test func aConsistentHistoryPasses() throws {
        var session = try Session()
        let created = try session.perform("create", ttl: 60)
        let kept = try session.perform("create")
        try session.perform("read", target: kept.recordName, card: 1)
        try session.perform("revoke", target: created.recordName)
        try session.perform("create", ttl: 60)
        for _ in 0..<4 { try session.perform("sweep") }
        try session.perform("compact")
        try session.perform("create", acknowledge: false)
        let check = try workload.checkAll(session.history, in: session.fixture.store)
        #expect(check.violations.isEmpty, "\(check.violations)")
        #expect(check.operationsChecked == 10 && check.inDoubtApplied == 1 && check.events == 6)
    }

    @Test func aLostAcknowledgedCreateIsCaught() throws {
        var session = try Session()
        try session.perform("create")
        let lost = RecordName.random()
        try session.pretend(CrashOperation(slot: 0, number: 1, kind: "create", time: ReliabilityStore.start, card: 1, ttlSeconds: 600),
                            result: CrashResult(recordName: lost.description, expiresAt: ReliabilityStore.start + 600_000))
        #expect(try violations(session).contains("acknowledged create of \(lost) is not in the log"))
    }

    @Test func aShareNoWriterBeganIsCaught() throws {
        var session = try Session()
        try session.perform("create")
        let phantom = try session.fixture.store.create(vCard: SampleCard.make(index: 77)).recordName
        #expect(try violations(session).contains { $0.contains("share \(phantom) at 2 matches no create") })
    }

    @Test func aReadThatDoesNotGiveTheCardBackStopsTheWriter() throws {
        var session = try Session()
        let created = try session.perform("create")
        let name = try #require(created.recordName.flatMap(RecordName.init))
        try session.fixture.store.revoke(name)
        #expect(throws: CrashViolation.self) { try session.perform("read", target: created.recordName, card: 0) }
    }

    @Test func aGapInTheLogIsCaught() throws {
        var session = try Session()
        for _ in 0..<3 { try session.perform("create") }
        let store = session.fixture.store, log = store.schema.log
        _ = try store.environment.write { txn in try txn.delete(Key.sequence(2), in: log) }
        let found = try violations(session)
        #expect(found.contains("log sequences jump from 1 to 3"))
        #expect(found.contains("verify: local sequence 2 is missing from the log"))
    }

    @Test func aSweepThatLeftADueShareIsCaught() throws {
        var session = try Session()
        let created = try session.perform("create", ttl: 60)
        let time = ReliabilityStore.start + 120_000
        try session.pretend(CrashOperation(slot: 0, number: 1, kind: "sweep", time: time), result: CrashResult(count: 1))
        let found = try violations(session)
        #expect(found.contains("writer 0's sweep at \(time) (operation 1) left due share \(created.recordName ?? "") live"))
        #expect(found.contains("acknowledged sweeps expired 1 shares, but the log has 0 ttl expiries"))
    }

    @Test func anInDoubtOperationMayHaveHappenedOrNot() throws {
        var session = try Session()
        try session.perform("create", acknowledge: false)
        let time = ReliabilityStore.start + 20_000
        try session.history.record(CrashLine(.begin, CrashOperation(slot: 0, number: 1, kind: "create", time: time,
                                                                    card: 1, ttlSeconds: 600)), slot: 0)
        session.history.writerDied(slot: 0)
        let check = try workload.checkAll(session.history, in: session.fixture.store)
        #expect(check.violations.isEmpty, "\(check.violations)")
        #expect(check.inDoubtApplied == 1)
    }

    @Test func theHarnessRunsKillsAndReportsItsNumbers() throws {
        let result = try ExternalCommand.run(ExternalCommand.built("sharelog-crash"), [
            "run", "--kills", "6", "--writers", "1,2", "--kills-per-store", "3", "--seed", "7", "--json",
        ])
        #expect(result.status == 0, "\(result.output)\(result.error)")
        let report = try JSONDecoder().decode(CrashReport.self, from: Data(result.output.utf8))
        #expect(report.passed && report.kills == 6 && report.stores == 2 && report.checks == 5)
        #expect(report.acknowledged > 0 && report.operationsChecked >= report.acknowledged)
    }
}
