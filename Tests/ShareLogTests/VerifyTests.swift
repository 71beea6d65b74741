import Foundation
import LMDB
import SampleCards
import Testing
import TestSupport
import TestTraits
@testable import ShareLog

@Suite(.ownThread) struct VerifyTests {
    /// Window sizes that make verify fold one record name per pass, a few,
    /// and the whole store at once (the default).
    static let windowSizes = [1, 3, 200_000]

    /// A store that has seen every kind of operation: shares swept,
    /// compacted, revoked (one still awaiting compaction), a rival creation,
    /// a tombstone that arrived before its creation, a creation that
    /// arrived redacted (so it ended where it came from), and an unknown
    /// kind. 3 shares live, 6 expired.
    static func busyStore() throws -> TestStore {
        let test = try TestStore()
        let shares = try (0..<6).map { try test.store.create(vCard: $0 == 0 ? SampleCard.make(index: 0, photoBytes: 40_000) : smallCard($0), ttl: .seconds(60 * ($0 + 1))) }
        try test.store.revoke(shares[5].recordName)
        test.clock.advance(by: .seconds(150))
        try test.store.sweep()
        try test.store.compact()
        let replica = ForeignReplica(), rival = ForeignReplica()
        let now = test.clock.now()
        let late = RecordName.random()
        try test.store.apply([
            replica.created(at: now, ttl: .seconds(600)),
            replica.event(.unknown(code: 42, flags: 0, payload: [1])),
            rival.created(shares[2].recordName, vCard: smallCard(20), at: now, ttl: .seconds(900)),
            replica.event(.shareExpired(ShareExpired(recordName: late, at: now, reason: .revoked))),
            replica.created(late, vCard: smallCard(30), at: now, ttl: .seconds(600)),
            replica.event(.shareCreated(ShareCreated(recordName: .random(), vCard: nil, createdAt: now, expiresAt: now.advanced(by: .seconds(600))))),
        ])
        try test.store.revoke(shares[4].recordName)
        return test
    }

    @Test(arguments: windowSizes) func verifyPassesAfterEveryKindOfOperation(windowSize: Int) throws {
        let test = try TestStore()
        #expect(try test.store.verify(windowSize: windowSize).isConsistent)
        _ = try test.store.create(vCard: smallCard(), ttl: .seconds(60))
        #expect(try test.store.verify(windowSize: windowSize).isConsistent)
        try test.store.revoke(try test.store.create(vCard: smallCard(1)).recordName)
        #expect(try test.store.verify(windowSize: windowSize).isConsistent)
        test.clock.advance(by: .seconds(60))
        try test.store.sweep()
        #expect(try test.store.verify(windowSize: windowSize).isConsistent)
        try test.store.compact()
        let report = try test.store.verify(windowSize: windowSize)
        #expect(report.isConsistent)
        #expect(report.events == 4)
        let busy = try Self.busyStore().store.verify(windowSize: windowSize)
        #expect(busy.isConsistent)
        #expect(busy.events == 16)
    }

    @Test(arguments: windowSizes) func verifyReportsACorruptLogEntryWithItsSequence(windowSize: Int) throws {
        let test = try Self.busyStore()
        let log = test.store.schema.log
        try test.store.environment.write { txn in
            var value = try txn.value(forKey: Key.sequence(2), in: log)!
            value[value.count / 2] ^= 0x40
            try txn.put(value, forKey: Key.sequence(2), in: log)
        }
        let report = try test.store.verify(windowSize: windowSize)
        #expect(report.corruptEvents.map(\.position) == [2])
        #expect(report.events == 15)
        #expect(throws: ShareLogError.self) { try test.store.events(after: 1) }
    }

    @Test(arguments: windowSizes) func verifyReportsTheFirstMissingSequenceOfEachGap(windowSize: Int) throws {
        let test = try Self.busyStore()
        let log = test.store.schema.log
        try test.store.environment.write { txn in
            for sequence: UInt64 in [3, 4, 9] { try txn.delete(Key.sequence(sequence), in: log) }
        }
        let report = try test.store.verify(windowSize: windowSize)
        #expect(report.positionGaps == [3, 9])
        #expect(report.events == 13)
        #expect(!report.isConsistent)
    }

    /// One damage made behind the store's back, and the exact report it
    /// must get: what the first read of the damaged database said before
    /// verify folded in windows, entry for entry.
    struct Damage: CustomTestStringConvertible, Sendable {
        let label: String
        /// Damages the store; returns the mismatches verify must report.
        let apply: @Sendable (TestStore) throws -> [Mismatch]
        var testDescription: String { label }
    }

    @Test(arguments: damages, windowSizes)
    func verifyReportsEachDamageExactly(damage: Damage, windowSize: Int) throws {
        let test = try Self.busyStore()
        let expected = try damage.apply(test)
        let report = try test.store.verify(windowSize: windowSize)
        #expect(report.mismatches == expected)
        #expect(report.corruptEvents == [])
        #expect(report.positionGaps == [])
        #expect(!report.isConsistent)
    }

    @Test(arguments: [1, 2, 3] as [UInt64], windowSizes)
    func verifyAgreesWithTheProjectionOnRandomHistories(seed: UInt64, windowSize: Int) throws {
        let test = try TestStore()
        var generator = SeededGenerator(seed: seed)
        try RandomHistory.play(on: test, using: &generator)
        let report = try test.store.verify(windowSize: windowSize)
        #expect(report.mismatches == [])
        #expect(report.isConsistent)
        #expect(report.events == (try test.store.stats().events))
        // Every derived entry compared exactly once, as LMDB counts them.
        let schema = test.store.schema
        let stored = try test.store.environment.read { txn in
            try [schema.eventIndex, schema.shares, schema.expiry, schema.pendingRedactions]
                .reduce(0) { $0 + (try txn.count(in: $1)) }
        }
        #expect(report.entriesCompared == stored)
    }
}
