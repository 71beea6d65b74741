import CrashHarness
import Foundation
import LMDB
import SampleCards
import Testing
@testable import ShareLog
import TestTraits

/// The crash checker must catch what it exists to catch: these tests build a
/// history by hand, make the store disagree with it, and expect a violation.
/// The last test runs the real harness, with a few kills.
@Suite(.hangDeadline) struct CrashCheckerTests {
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

        /// Records a begin for an operation that never ran, and the death of
        /// its writer: it is in doubt.
        mutating func begin(_ operation: CrashOperation) throws {
            try history.record(CrashLine(.begin, operation), slot: 0)
            history.writerDied(slot: 0)
            number = operation.number + 1
        }

        /// The time of operation `number` in slot 0.
        static func time(_ number: Int) -> Int64 { ReliabilityStore.start + Int64(number) * ShareWorkload().timeStep }
    }

    /// Everything the runner checks: the audit, then `verify`.
    func violations(_ session: Session) throws -> [String] {
        try workload.checkAll(session.history, in: session.fixture.store).violations.map(\.description)
    }

    /// The share audit's violations alone, for stores doctored under
    /// `verify`'s nose (which reports those too, in its own words).
    func auditViolations(_ session: Session) throws -> [String] {
        try workload.check(session.history, in: session.fixture.store).violations.map(\.description)
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

    @Test func aLostAcknowledgedRevokeIsCaught() throws {
        var session = try Session()
        let created = try session.perform("create")
        let name = try #require(created.recordName)
        try session.pretend(CrashOperation(slot: 0, number: 1, kind: "revoke", time: Session.time(1), target: name),
                            result: CrashResult())
        #expect(try violations(session) == ["acknowledged revoke of \(name) at 1893456020000 is not in the log"])
    }

    @Test func aRevokeNoWriterBeganIsCaught() throws {
        var session = try Session()
        let first = try #require(try session.perform("create").recordName.flatMap(RecordName.init))
        let second = try #require(try session.perform("create").recordName.flatMap(RecordName.init))
        let store = session.fixture.store
        // No writer began this revoke…
        session.fixture.clock.set(Session.time(2))
        try store.revoke(first)
        // …and this one was begun (and never ran) at another time than the revoke logged.
        try session.begin(CrashOperation(slot: 0, number: 3, kind: "revoke", time: Session.time(3), target: second.description))
        session.fixture.clock.set(Session.time(4))
        try store.revoke(second)
        #expect(try violations(session) == [
            "share \(first) is revoked at 1893456040000 (entry 3) but no writer began that revoke",
            "share \(second) is revoked at 1893456080000 (entry 4) but no writer began that revoke",
        ])
    }

    @Test func aTtlExpiryLoggedBeforeItsShareExpiresIsCaught() throws {
        var session = try Session()
        let created = try session.perform("create", ttl: 600)
        let name = try #require(created.recordName.flatMap(RecordName.init))
        let store = session.fixture.store
        // A ttl expiry at 60 s into a 600 s share, under the share's TTL-end id.
        try store.apply([Event(id: EventID(origin: ReplicaID(uuid: name.uuid), counter: 0), kind: .shareExpired(
            ShareExpired(recordName: name, at: Timestamp(milliseconds: Session.time(3)), reason: .ttl)))])
        try session.pretend(CrashOperation(slot: 0, number: 6, kind: "sweep", time: Session.time(6)), result: CrashResult(count: 1))
        #expect(try auditViolations(session)
            == ["share \(name) expired by ttl at 1893456060000 (entry 2), but it expires at 1893456600000"])
    }

    @Test func aTtlExpiryNoSweepCouldHaveMadeYetIsCaught() throws {
        var session = try Session()
        let created = try session.perform("create", ttl: 60)
        let name = try #require(created.recordName)
        try session.pretend(CrashOperation(slot: 0, number: 1, kind: "sweep", time: Session.time(1)), result: CrashResult(count: 0))
        try session.begin(CrashOperation(slot: 0, number: 2, kind: "sweep", time: Session.time(2)))
        // A sweep at 120 s that no writer began expires the share, at its 60 s.
        try session.fixture.store.sweep(at: Timestamp(milliseconds: Session.time(6)))
        #expect(try violations(session) == [
            "share \(name) expired by ttl at 1893456060000 (entry 2), but no sweep began at or after that time "
                + "(the latest began at 1893456040000)",
        ])
    }

    @Test func aCompactionThatLeftTheCardOfAnEndedShareIsCaught() throws {
        var session = try Session()
        let revoked = try #require(try session.perform("create", ttl: 600).recordName)
        let swept = try #require(try session.perform("create", ttl: 60).recordName)
        try session.perform("revoke", target: revoked)
        session.number = 5
        #expect(try session.perform("sweep") == CrashResult(count: 1))
        // Acknowledged, yet both cards are still in the log.
        try session.pretend(CrashOperation(slot: 0, number: 6, kind: "compact", time: Session.time(6)), result: CrashResult(count: 0))
        #expect(try violations(session).sorted() == [
            "writer 0's compaction (operation 6) left the card of ended share \(revoked) in the log",
            "writer 0's compaction (operation 6) left the card of ended share \(swept) in the log",
        ].sorted())
    }

    @Test func aFetchThatDisagreesWithTheLogIsCaught() throws {
        var session = try Session()
        let names = try (0..<3).map { _ in try #require(try session.perform("create").recordName.flatMap(RecordName.init)) }
        let store = session.fixture.store, shares = store.schema.shares, expiry = store.schema.expiry
        let liveRow = try #require(try store.environment.read { txn in try txn.value(forKey: names[1].bytes, in: shares) })
        // Its `expiry` entry, which says it is still pending: ShareLog's key layout, taken as stored.
        let pendingEntry = try #require(try store.environment.read { txn -> ([UInt8], [UInt8])? in
            var found: ([UInt8], [UInt8])?
            try txn.scan(expiry) { entry in
                if entry.key.count == 24, Array(entry.key[8...]) == names[1].bytes { found = (Array(entry.key), Array(entry.value)) }
                return .proceed
            }
            return found
        })
        try session.perform("revoke", target: names[1].description)
        let first = try #require(try store.environment.read { txn in try store.projection.state(of: names[0], in: txn) }?.creation)
        var otherCard = try #require(try store.environment.read { txn in try store.projection.state(of: names[2], in: txn) })
        let third = try #require(otherCard.creation)
        // Pointed at the first share's log entry, the third reads the first's card.
        otherCard.creation = ShareState.Creation(
            createdAt: third.createdAt, expiresAt: third.expiresAt, event: third.event, position: first.position)
        let doctored = otherCard.encoded()
        // The first share vanishes, the revoked one is live again, the third holds another card.
        _ = try store.environment.write { txn in
            try txn.delete(names[0].bytes, in: shares)
            try txn.put(liveRow, forKey: names[1].bytes, in: shares)
            try txn.put(pendingEntry.1, forKey: pendingEntry.0, in: expiry)
            try txn.put(doctored, forKey: names[2].bytes, in: shares)
        }
        #expect(try auditViolations(session).sorted() == [
            "fetch(\(names[0])) answers not found, but the log says it is live",
            "fetch(\(names[1])) answers live, but the log ended it at 1893456060000 (revoked)",
            "fetch(\(names[2])) answers a share that differs from its create",
        ].sorted())
    }

    @Test func aStatsAnswerThatDisagreesWithTheLogIsCaught() throws {
        var session = try Session()
        try session.perform("create")
        let revoked = try session.perform("create")
        try session.perform("revoke", target: revoked.recordName)
        let store = session.fixture.store, meta = store.schema.meta
        _ = try store.environment.write { txn in try txn.put(Key.bigEndian(UInt64(5)), forKey: MetaKey.liveCount, in: meta) }
        #expect(try auditViolations(session) == ["stats count 5 live and 1 expired, the log 2 shares, 1 ended"])
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
        // Every store opened at 16 KiB, and writers grew it while being killed.
        #expect(report.initialMapBytes == 16 << 10)
        #expect(report.mapGrowthRounds > 0 && report.largestMapBytes > 16 << 10, "\(result.output)")
    }
}
