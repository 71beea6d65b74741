import Foundation
import LMDB
import SampleCards
import Testing
@testable import ShareLog

@Suite struct VerifyTests {
    /// A store that has seen every kind of operation.
    static func busyStore() throws -> TestStore {
        let test = try TestStore()
        let shares = try (0..<6).map { try test.store.create(vCard: $0 == 0 ? SampleCard.make(index: 0, photoBytes: 40_000) : smallCard($0), ttl: .seconds(60 * ($0 + 1))) }
        try test.store.revoke(shares[5].recordName)
        test.clock.advance(by: .seconds(150))
        try test.store.sweep()
        try test.store.compact()
        let replica = ForeignReplica()
        try test.store.apply([replica.created(at: test.clock.now(), ttl: .seconds(600)), replica.event(.unknown(code: 42, flags: 0, payload: [1]))])
        return test
    }

    @Test func verifyPassesAfterEveryKindOfOperation() throws {
        let test = try TestStore()
        #expect(try test.store.verify().isConsistent)
        let share = try test.store.create(vCard: smallCard(), ttl: .seconds(60))
        #expect(try test.store.verify().isConsistent)
        try test.store.revoke(try test.store.create(vCard: smallCard(1)).recordName)
        #expect(try test.store.verify().isConsistent)
        test.clock.advance(by: .seconds(60))
        try test.store.sweep()
        #expect(try test.store.verify().isConsistent)
        try test.store.compact()
        let report = try test.store.verify()
        #expect(report.isConsistent)
        #expect(report.events == 4)
        _ = share
    }

    @Test func verifyReportsAProjectionValueCorruptedOnPurpose() throws {
        let test = try Self.busyStore()
        let shares = test.store.schema.shares
        let key = try #require(try test.contents(of: \.shares).keys.first)
        try test.store.environment.write { txn in
            var value = try txn.value(forKey: key, in: shares)!
            value[3] ^= 0x01
            try txn.put(value, forKey: key, in: shares)
        }
        let report = try test.store.verify()
        #expect(!report.isConsistent)
        #expect(report.mismatches.contains { $0.database == "shares" && $0.problem.contains("differs") })
    }

    @Test func verifyReportsMissingAndExtraEntries() throws {
        let test = try Self.busyStore()
        let expiry = test.store.schema.expiry
        let key = try #require(try test.contents(of: \.expiry).keys.first)
        try test.store.environment.write { txn in
            try txn.delete(key, in: expiry)
            try txn.put([UInt8](), forKey: [UInt8](repeating: 0xEE, count: 24), in: expiry)
        }
        let problems = try test.store.verify().mismatches.map(\.problem)
        #expect(problems.contains("implied by the log but missing"))
        #expect(problems.contains("stored but not implied by the log"))
    }

    @Test func verifyReportsACorruptLogEntryWithItsSequence() throws {
        let test = try Self.busyStore()
        let log = test.store.schema.log
        try test.store.environment.write { txn in
            var value = try txn.value(forKey: Key.sequence(2), in: log)!
            value[value.count / 2] ^= 0x40
            try txn.put(value, forKey: Key.sequence(2), in: log)
        }
        let report = try test.store.verify()
        #expect(report.corruptEvents.map(\.sequence) == [2])
        #expect(throws: ShareLogError.self) { try test.store.events(after: 1) }
    }

    @Test func verifyReportsACounterThatDisagrees() throws {
        let test = try Self.busyStore()
        let meta = test.store.schema.meta
        try test.store.environment.write { txn in try txn.put(Key.bigEndian(UInt64(999)), forKey: MetaKey.liveCount, in: meta) }
        #expect(try test.store.verify().mismatches.contains { $0.key == "live-count" })
    }
}
