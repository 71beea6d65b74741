import Foundation
import LMDB
import Testing
import TestSupport
@testable import ShareLog

/// `verify`'s memory bound as arithmetic, not timing: a window reserves its
/// storage once and never grows it, the default windows fit their stated
/// 28 MiB, and a store with more names than one window still gets every
/// difference reported, in its later window too.
@Suite struct VerifyBudgetTests {
    static func randomName(_ generator: inout SeededGenerator) -> RecordName {
        RecordName(bytes: (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    @Test func aWindowNeverGrowsItsStorageAndFitsItsBudget() {
        let budget = 4 << 10
        var window = FoldWindow<RecordName, ShareFold>(from: nil, capacity: FoldWindow<RecordName, ShareFold>.capacity(budget: budget))
        let reserved = window.values.capacity
        #expect(reserved >= window.limit)
        #expect(window.reservedBytes <= budget)
        var generator = SeededGenerator(seed: 7)
        var windows = 0
        repeat {
            windows += 1
            for _ in 0..<4 * window.limit {
                window.fold(Self.randomName(&generator), initial: ShareFold()) { _ in }
                #expect(window.values.count <= window.limit)
            }
            #expect(window.values.capacity == reserved)
        } while window.advance() && windows < 3
        #expect(windows == 3)
    }

    /// 262,144 buckets of 80 bytes (a 16-byte name and a 64-byte fold) are
    /// 20 MiB; of 32 bytes (a 24-byte event id and a position), 8 MiB. A
    /// table fills three quarters of its buckets, and a window keeps a fifth
    /// of that for a shrink: 157,286 of each, or the window size if fewer.
    @Test func theDefaultWindowsHoldTheirStatedCountsIn28MiB() {
        #expect(MemoryLayout<ShareFold>.stride <= 64)
        let names = FoldWindow<RecordName, ShareFold>(from: nil, capacity: Verifier.nameCapacity(windowSize: 150_000))
        let events = FoldWindow<EventID, UInt64>(from: nil, capacity: Verifier.eventCapacity(windowSize: 150_000))
        #expect(names.capacity == 150_000)
        #expect(events.capacity == 157_286)
        #expect(Verifier.nameCapacity(windowSize: 1_000_000) == 157_286)
        #expect(names.reservedBytes <= Verifier.nameBudget)
        #expect(events.reservedBytes <= Verifier.eventBudget)
        #expect(Verifier.nameBudget + Verifier.eventBudget <= 28 << 20)
    }

    @Test func aStoreLargerThanOneWindowGetsItsLastKeysCompared() throws {
        let test = try TestStore()
        let windowSize = 20_000
        let count = windowSize + 700
        for start in stride(from: 0, to: count, by: 10_000) {
            _ = try test.store.create(vCards: (start..<min(count, start + 10_000)).map(smallCard), ttl: .seconds(600))
        }
        // The largest name, which only the second window of names holds,
        // and the largest event id, in the one window of ids.
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
