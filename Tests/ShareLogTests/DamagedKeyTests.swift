import Foundation
import LMDB
import Testing
import TestSupport
@testable import ShareLog

/// A store whose keys were damaged behind ShareLog's back (written with the
/// LMDB wrapper directly) gets a typed error that says what is damaged and
/// what to do, from every operation that reads the key, and an entry in
/// `verify`'s report; never a trap, and never a silent skip.
@Suite struct DamagedKeyTests {
    /// Lowercase hex, two digits a byte, written apart from `Key.hex`.
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    static func notImplied(_ database: String, _ key: [UInt8]) -> Mismatch {
        Mismatch(database: database, key: hex(key), problem: "stored but not implied by the log")
    }

    static func differs(_ database: String, _ key: [UInt8]) -> Mismatch {
        Mismatch(database: database, key: hex(key), problem: "value differs from the log's")
    }

    /// The record name 6f1c2a9e-58b4-4d9a-9f0e-2b7c1d3e4f50, byte by byte.
    static let nameBytes: [UInt8] = [0x6F, 0x1C, 0x2A, 0x9E, 0x58, 0xB4, 0x4D, 0x9A, 0x9F, 0x0E, 0x2B, 0x7C, 0x1D, 0x3E, 0x4F, 0x50]
    /// Big-endian 1: one millisecond after 1970 began, due at any later time.
    static let longAgo: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 1]

    static func put(_ value: [UInt8], forKey key: [UInt8], in database: KeyPath<Schema, Database>, of test: TestStore) throws {
        let db = test.store.schema[keyPath: database]
        try test.store.environment.write { txn in try txn.put(value, forKey: key, in: db) }
    }

    @Test func aSweepRefusesAnExpiryKeyOfTheWrongLength() throws {
        let test = try TestStore()
        _ = try test.store.create(vCard: smallCard(), ttl: .seconds(60))
        let key = Self.longAgo + Self.nameBytes.dropLast()
        try Self.put([], forKey: key, in: \.expiry, of: test)
        test.clock.advance(by: .seconds(60))
        #expect(throws: ShareLogError.corruptKey(
            database: "expiry", key: key,
            reason: "not an expiry time (8 bytes, at most Int64.max) and a record name (16 bytes), "
                + "with a log position and that same time as its value (16 bytes)")
        ) { try test.store.sweep() }
        #expect(try test.store.stats().events == 1)
        #expect(try test.store.verify().mismatches == [Self.notImplied("expiry", key)])
    }

    /// The entry is well formed and names log position 1, which holds
    /// another share's creation: a sweep must neither end nor redact it.
    @Test func aSweepRefusesAnExpiryEntryOfNoPendingShareInsteadOfEndingAnotherShare() throws {
        let test = try TestStore()
        let other = try test.store.create(vCard: smallCard(), ttl: .seconds(3600))
        let key = Self.longAgo + Self.nameBytes
        try Self.put([0, 0, 0, 0, 0, 0, 0, 1] + Self.longAgo, forKey: key, in: \.expiry, of: test)
        #expect(throws: ShareLogError.corruptKey(
            database: "expiry", key: key,
            reason: "no pending share 6f1c2a9e-58b4-4d9a-9f0e-2b7c1d3e4f50 was created at log position 1")
        ) { try test.store.sweep() }
        #expect(try test.store.stats().events == 1)
        #expect(try test.store.stats().pendingRedactions == 0)
        #expect(try test.store.fetch(other.recordName) == .live(Share(
            recordName: other.recordName, vCard: smallCard(), createdAt: test.clock.now(), expiresAt: test.clock.now().advanced(by: .seconds(3600)))))
        #expect(try test.store.verify().mismatches == [Self.notImplied("expiry", key)])
    }

    @Test func sweepingAShareWhoseExpiryValueIsDamagedRefusesInsteadOfLosingTheCard() throws {
        let test = try TestStore()
        let share = try test.store.create(vCard: smallCard(), ttl: .seconds(60))
        // ManualClock's start plus 60 s, big-endian, then the record name.
        let key: [UInt8] = [0, 0, 0x01, 0xA3, 0x18, 0x5D, 0x3A, 0x60] + share.recordName.bytes
        try Self.put([0, 0, 0, 0, 0, 0, 0, 1], forKey: key, in: \.expiry, of: test)
        test.clock.advance(by: .seconds(60))
        #expect(throws: ShareLogError.corruptKey(
            database: "expiry", key: key,
            reason: "not an expiry time (8 bytes, at most Int64.max) and a record name (16 bytes), "
                + "with a log position and that same time as its value (16 bytes)")) { try test.store.sweep() }
        #expect(try test.store.stats().events == 1)
        #expect(try test.store.verify().mismatches == [Self.differs("expiry", key)])
    }

    @Test func aCompactionRefusesAPendingRedactionsKeyOfTheWrongLength() throws {
        let test = try TestStore()
        let card = smallCard()
        let share = try test.store.create(vCard: card, ttl: .seconds(60))
        try test.store.revoke(share.recordName)
        let key: [UInt8] = [0, 0, 0, 0, 0, 0, 9]
        try Self.put([], forKey: key, in: \.pendingRedactions, of: test)
        #expect(throws: ShareLogError.corruptKey(database: "pendingRedactions", key: key, reason: "not an 8-byte log position")) {
            try test.store.compact()
        }
        // The batch was not written: the creation still holds its card.
        guard case .shareCreated(let created) = try test.store.events(after: 0).first?.event.kind else {
            Issue.record("the log lost its first entry")
            return
        }
        #expect(created.vCard == card)
        #expect(try test.store.verify().mismatches == [Self.notImplied("pendingRedactions", key)])
    }

    @Test func aLogKeyOfTheLargestSequenceStopsWritesAndVerifyReportsTheGap() throws {
        let test = try TestStore()
        _ = try test.store.create(vCard: smallCard(), ttl: .seconds(60))
        let replica = ForeignReplica()
        let stray = replica.event(.unknown(code: 42, flags: 0, payload: [7]))
        let key = [UInt8](repeating: 0xFF, count: 8)
        try Self.put(EventCodec.encode(stray), forKey: key, in: \.log, of: test)
        let error = ShareLogError.corruptKey(database: "log", key: key, reason: "the largest log position; no entry can follow it")
        #expect(throws: error) { try test.store.create(vCard: smallCard(1)) }
        #expect(throws: error) { try test.store.apply([replica.event(.unknown(code: 42, flags: 0, payload: [8]))]) }
        test.clock.advance(by: .seconds(60))
        #expect(throws: error) { try test.store.sweep() }
        let report = try test.store.verify()
        #expect(report.events == 2)
        #expect(report.positionGaps == [2])
        #expect(report.corruptEvents == [])
        #expect(report.mismatches == [Mismatch(
            database: "eventIndex", key: Self.hex(replica.id.bytes + [0, 0, 0, 0, 0, 0, 0, 1]), problem: "implied by the log but missing")])
    }

    @Test func aLogKeyOfTheWrongLengthRaisesATypedErrorAndVerifyReportsIt() throws {
        let test = try TestStore()
        _ = try test.store.create(vCard: smallCard(), ttl: .seconds(60))
        let key = [UInt8](repeating: 0xFF, count: 9)
        try Self.put(EventCodec.encode(ForeignReplica().event(.unknown(code: 42, flags: 0, payload: []))), forKey: key, in: \.log, of: test)
        let error = ShareLogError.corruptKey(database: "log", key: key, reason: "not an 8-byte log position")
        #expect(throws: error) { try test.store.create(vCard: smallCard(1)) }
        #expect(throws: error) { try test.store.events(after: 0) }
        let report = try test.store.verify()
        #expect(report.events == 1)
        #expect(report.positionGaps == [])
        #expect(report.mismatches == [Mismatch(database: "log", key: String(repeating: "ff", count: 9), problem: "not an 8-byte log position")])
    }

    @Test func aLogKeyOfSequenceZeroIsReportedByVerify() throws {
        let test = try TestStore()
        let stray = ForeignReplica().event(.unknown(code: 42, flags: 0, payload: []))
        try Self.put(EventCodec.encode(stray), forKey: [0, 0, 0, 0, 0, 0, 0, 0], in: \.log, of: test)
        let report = try test.store.verify()
        #expect(report.positionGaps == [])
        #expect(report.mismatches == [
            Mismatch(database: "log", key: "0000000000000000", problem: "log positions start at 1"),
            Mismatch(database: "eventIndex", key: Self.hex(stray.id.origin.bytes + [0, 0, 0, 0, 0, 0, 0, 1]), problem: "implied by the log but missing"),
        ])
    }

    @Test func countersNoStoreReachesRaiseTypedErrors() throws {
        let test = try TestStore()
        let largest = [UInt8](repeating: 0xFF, count: 8)
        try Self.put(largest, forKey: Array("origin-sequence".utf8), in: \.meta, of: test)
        #expect(throws: ShareLogError.corruptMeta("origin-sequence")) { try test.store.create(vCard: smallCard()) }
        try Self.put(largest, forKey: Array("live-count".utf8), in: \.meta, of: test)
        #expect(throws: ShareLogError.corruptMeta("live-count")) { try test.store.stats() }
        try Self.put([1, 2, 3], forKey: Array("expired-count".utf8), in: \.meta, of: test)
        #expect(try test.store.verify().mismatches == [
            Mismatch(database: "meta", key: "live-count", problem: "stored 18446744073709551615, log implies 0"),
            Mismatch(database: "meta", key: "expired-count", problem: "not an 8-byte count"),
        ])
    }

    /// An origin counter set back below what the log holds would make the
    /// next local event reuse an event id its peers already have.
    @Test func anOriginCounterBehindTheLogRefusesTheWriteInsteadOfReusingAnID() throws {
        let test = try TestStore()
        let share = try test.store.create(vCard: smallCard())
        try Self.put([0, 0, 0, 0, 0, 0, 0, 0], forKey: Array("origin-sequence".utf8), in: \.meta, of: test)
        #expect(throws: ShareLogError.corruptMeta("origin-sequence")) { try test.store.create(vCard: smallCard(1)) }
        #expect(throws: ShareLogError.corruptMeta("origin-sequence")) { try test.store.revoke(share.recordName) }
        #expect(try test.store.stats().events == 1)
        #expect(try test.store.stats().live == 1)
        #expect(try test.store.events(after: 0).map(\.event.id.counter) == [1])
    }

    @Test func theErrorSaysWhatIsDamagedAndWhatToDo() {
        let error = ShareLogError.corruptKey(database: "expiry", key: [0x00, 0xAB], reason: "too short")
        #expect(error.description == "the store's 'expiry' database holds a damaged key 00ab (too short); the write that met it was not committed. "
            + "Run 'sharelog verify' to see all the damage, then restore the store from a replica")
    }

    @Test func theCLIExitsWithFailureAndPrintsTheError() throws {
        let dir = TemporaryDirectory()
        let cli = CLI(store: dir.appending("store"))
        _ = try cli.run("init")
        let store = try ShareStore.open(at: cli.store)
        let key: [UInt8] = [0, 0, 0, 0, 0, 0, 9]
        let pending = store.schema.pendingRedactions
        try store.environment.write { txn in try txn.put([UInt8](), forKey: key, in: pending) }
        let compacted = try cli.run("compact")
        #expect(compacted.status == 1)
        #expect(compacted.error == "sharelog: the store's 'pendingRedactions' database holds a damaged key 00000000000009 "
            + "(not an 8-byte log position); the write that met it was not committed. "
            + "Run 'sharelog verify' to see all the damage, then restore the store from a replica\n")
        let verified = try cli.run("verify")
        #expect(verified.status == 1)
        #expect(verified.output.contains("pendingRedactions[00000000000009]: stored but not implied by the log\n"))
    }
}
