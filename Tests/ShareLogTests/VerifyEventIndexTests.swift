import Foundation
import LMDB
import Testing
import TestSupport
import TestTraits
@testable import ShareLog

/// `verify` checks `eventIndex` against the log by looking each logged id
/// up, keeping only the ids whose entry does not name the log entry that
/// holds them: an id logged twice is indexed at its later entry, and an
/// index damaged throughout is reported in full, in key order, with
/// bounded windows of such ids.
@Suite(.ownThread) struct VerifyEventIndexTests {
    /// Logs a second copy of the busy store's unknown-kind event (which
    /// changes no share) at the next log position; returns its id's
    /// `eventIndex` key and both positions.
    static func logTwice(in test: TestStore) throws -> (key: [UInt8], first: UInt64, second: UInt64) {
        let log = try test.contents(of: \.log)
        let position = { (key: [UInt8]) in key.reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
        let unknown = try #require(log.first { $0.value[1] == 42 }, "the busy store logs an unknown kind")
        let (first, value) = (position(unknown.key), unknown.value)
        let last = try #require(log.keys.map(position).max())
        try VerifyTests.put(value, forKey: Key.sequence(last + 1), in: \.log, of: test)
        return (Array(value[3..<27]), first, last + 1)
    }

    @Test(arguments: VerifyTests.windowSizes) func anIdLoggedTwiceIsIndexedAtItsLaterEntry(windowSize: Int) throws {
        let test = try VerifyTests.busyStore()
        let (key, first, second) = try Self.logTwice(in: test)
        try VerifyTests.put(Key.sequence(second), forKey: key, in: \.eventIndex, of: test)
        let report = try test.store.verify(windowSize: windowSize)
        #expect(report.mismatches == [])
        #expect(report.isConsistent)
        #expect(report.events == 17)

        try VerifyTests.put(Key.sequence(first), forKey: key, in: \.eventIndex, of: test)
        let stale = try test.store.verify(windowSize: windowSize)
        #expect(stale.mismatches == [VerifyTests.mismatch("eventIndex", key, Mismatch.differs)])
    }

    @Test(arguments: VerifyTests.windowSizes) func anIndexDamagedThroughoutIsReportedInFullInKeyOrder(windowSize: Int) throws {
        let test = try VerifyTests.busyStore()
        let index = try test.contents(of: \.eventIndex)
        let keys = index.keys.sorted(by: VerifyTests.precedes)
        #expect(keys.count == 16)
        // Every entry deleted but the largest, which now names the log
        // entry of the smallest id instead of its own.
        for key in keys.dropLast() { try VerifyTests.delete(key, in: \.eventIndex, of: test) }
        try VerifyTests.put(index[keys[0]] ?? [], forKey: keys[15], in: \.eventIndex, of: test)
        let report = try test.store.verify(windowSize: windowSize)
        #expect(report.mismatches == keys.dropLast().map { VerifyTests.mismatch("eventIndex", $0, Mismatch.missing) }
            + [VerifyTests.mismatch("eventIndex", keys[15], Mismatch.differs)])
        // Every stored derived entry once, and each missing one.
        let stored = try [\Schema.eventIndex, \.shares, \.expiry, \.pendingRedactions].reduce(0) { $0 + (try test.contents(of: $1).count) }
        #expect(report.entriesCompared == stored + 15)
    }
}
