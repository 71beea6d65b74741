import Foundation
import LMDB
import Testing
import TestSupport
@testable import ShareLog

/// `verify`'s memory bound as arithmetic, not timing: a window reserves its
/// storage once and never grows it, the default windows fit their stated
/// 7 MiB, and a store with more names than one window still gets every
/// difference reported, in its later window too.
@Suite struct VerifyBudgetTests {
    static func randomName(_ generator: inout SeededGenerator) -> RecordName {
        RecordName(bytes: (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    @Test func aWindowNeverGrowsItsStorageAndFitsItsBudget() {
        let budget = 4 << 10
        var window = NameWindow(capacity: budget / NameWindow.entryBytes)
        let reserved = window.entries.capacity
        #expect(window.reservedBytes <= budget)
        var generator = SeededGenerator(seed: 7)
        var windows = 0
        repeat {
            windows += 1
            for position in 0..<4 * window.capacity {
                window.add(Self.randomName(&generator), at: UInt64(position))
                #expect(window.entries.count <= window.capacity)
            }
            #expect(window.entries.capacity == reserved)
            window.sort()
            #expect(window.entries.capacity == reserved)
        } while window.advance() && windows < 3
        #expect(windows == 3)
    }

    /// 6 MiB of 24-byte entries (a 16-byte name and a log position) are
    /// 262,144 of them; 1 MiB of 32-byte buckets (a 24-byte event id and a
    /// position) is 32,768 buckets, filled to three quarters, of which a
    /// fifth is kept for a shrink: 19,660 suspect ids.
    @Test func theDefaultWindowsHoldTheirStatedCountsIn7MiB() {
        #expect(NameWindow.entryBytes == 24)
        let capacity = Verifier.nameCapacity(windowSize: .max)
        #expect(capacity == 262_144)
        #expect(NameWindow(capacity: capacity).reservedBytes <= Verifier.nameBudget)
        #expect(Verifier.suspectCapacity == 19_660)
        #expect(FoldWindow<EventID, UInt64>(from: nil, capacity: Verifier.suspectCapacity).reservedBytes <= Verifier.suspectBudget)
        #expect(Verifier.nameBudget + Verifier.suspectBudget <= 7 << 20)
        // A million events, nine creations to one expiration: 900,000 names
        // at 0.9 a logged event, 228,556 a window (262,144 × 0.9 × 31/32):
        // four windows.
        #expect(Verifier.namesPerWindow(windowSize: .max, capacity: capacity, names: 900_000, events: 1_000_000) == 228_556)
        #expect(Verifier.namesPerWindow(windowSize: 3, capacity: Verifier.nameCapacity(windowSize: 3), names: 9, events: 16) == 3)
    }

    @Test func aStoreLargerThanOneWindowGetsItsLastKeysCompared() throws {
        let test = try TestStore()
        let windowSize = 20_000
        let count = windowSize + 700
        for start in stride(from: 0, to: count, by: 10_000) {
            _ = try test.store.create(vCards: (start..<min(count, start + 10_000)).map(smallCard), ttl: .seconds(600))
        }
        // The largest name, which only the second window of names holds,
        // and the largest event id.
        let lastName = try VerifyTests.largest(\.shares, of: test)
        let lastEvent = try VerifyTests.largest(\.eventIndex, of: test)
        try VerifyTests.delete(lastName, in: \.shares, of: test)
        try VerifyTests.put([0, 0, 0, 0, 0, 0, 3, 0xE7], forKey: lastEvent, in: \.eventIndex, of: test)
        var progress: [Int] = []
        let report = try test.store.verify(windowSize: windowSize, chunkSize: count) { progress.append($0) }
        #expect(progress == [count, 2 * count])
        #expect(report.events == count)
        #expect(report.mismatches == [
            VerifyTests.mismatch("eventIndex", lastEvent, Mismatch.differs),
            VerifyTests.mismatch("shares", lastName, Mismatch.missing),
        ])
    }
}

extension VerifyTests {
    /// The largest key of a database.
    static func largest(_ database: KeyPath<Schema, Database>, of test: TestStore) throws -> [UInt8] {
        try test.contents(of: database).keys.sorted(by: precedes).last ?? []
    }
}
