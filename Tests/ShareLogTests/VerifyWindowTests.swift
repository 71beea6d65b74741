import Foundation
import Testing
import TestSupport
@testable import ShareLog

/// `verify` holds a bounded window of the fold in memory and reads the log
/// once per window: the window never grows past a quarter over its
/// capacity, and the windows cover every key exactly once.
@Suite struct VerifyWindowTests {
    /// Record names whose first byte is 0, 1, 2, …: their order is known.
    static func names(_ count: Int) -> [RecordName] {
        (0..<count).map { index in
            RecordName(bytes: [UInt8(index)] + [UInt8](repeating: 0x5A, count: 15))
        }
    }

    @Test(arguments: [1, 2, 5] as [UInt64]) func windowsCoverEveryKeyOnceInOrderAndStaySmall(seed: UInt64) {
        let all = Self.names(23)
        var generator = SeededGenerator(seed: seed)
        for (capacity, bound) in [(1, 1), (4, 5)] {
            var window = FoldWindow<RecordName, Int>(from: nil, capacity: capacity)
            var held: [[RecordName]] = []
            var advanced = true
            // A window that failed to advance would loop for ever: at most
            // one window per key.
            while advanced, held.count < all.count {
                for name in all.shuffled(using: &generator) {
                    window.fold(name, initial: 0) { $0 += 1 }
                    // The bound: a quarter over capacity, then it shrinks.
                    #expect(window.values.count <= bound)
                }
                held.append(window.values.keys.sorted(by: RecordName.precedes))
                #expect(window.values.values.allSatisfy { $0 == 1 })
                advanced = window.advance()
            }
            // Every key in exactly one window, the windows in key order.
            #expect(held.flatMap { $0 } == all)
            #expect(!advanced)
            if capacity == 1 { #expect(held.map(\.count) == Array(repeating: 1, count: 23)) }
        }
    }

    @Test func verifyReadsTheLogOncePerWindow() throws {
        let test = try TestStore()
        _ = try test.store.create(vCards: (0..<5).map(smallCard), ttl: .seconds(600))
        var progress: [Int] = []
        // One record name per window: five passes over the five entries.
        let report = try test.store.verify(windowSize: 1, chunkSize: 100) { progress.append($0) }
        #expect(report.isConsistent)
        #expect(report.events == 5)
        #expect(progress == [5, 10, 15, 20, 25])
        progress = []
        _ = try test.store.verify(chunkSize: 2) { progress.append($0) }
        #expect(progress == [2, 4, 5])
    }
}
