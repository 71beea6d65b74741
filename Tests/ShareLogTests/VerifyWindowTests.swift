import Foundation
import Testing
import TestSupport
@testable import ShareLog

/// `verify` holds a bounded window of its fold in memory and reads the log
/// once per window: the window holds each event of its names once, never
/// more entries than it reserved unless one name alone needs more, never
/// splits a name, and the windows cover every name exactly once, in key
/// order.
@Suite struct VerifyWindowTests {
    /// Record names whose first byte is 0, 1, 2, …: their order is known.
    static func names(_ count: Int) -> [RecordName] {
        (0..<count).map { index in
            RecordName(bytes: [UInt8(index)] + [UInt8](repeating: 0x5A, count: 15))
        }
    }

    /// Every window's groups until the last one: a name and its positions.
    static func windows(
        capacity: Int, offering events: [(RecordName, UInt64)], check: (NameWindow) -> Void = { _ in }
    ) -> [[(name: RecordName, positions: [UInt64])]] {
        var window = NameWindow(capacity: capacity)
        var held: [[(name: RecordName, positions: [UInt64])]] = []
        // A window that failed to advance would loop for ever: at most
        // one window per event.
        repeat {
            for (name, position) in events { window.add(name, at: position) }
            check(window)
            window.sort()
            held.append(window.groups.map { ($0.name, Array($0.positions)) })
        } while window.advance() && held.count <= events.count
        return held
    }

    @Test(arguments: [1, 2, 5] as [UInt64]) func windowsHoldEveryEventOnceGroupedInKeyOrder(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        // Name i has i % 3 + 1 events, at positions 100 i, 100 i + 1, ….
        let all = Self.names(23)
        let events = all.enumerated().flatMap { index, name in
            (0...(index % 3)).map { (name, UInt64(100 * index + $0)) }
        }.shuffled(using: &generator)
        for capacity in [4, 6, 16] {
            let held = Self.windows(capacity: capacity, offering: events) { window in
                // The bound: what it reserved, as no name has more events.
                #expect(window.entries.count <= capacity)
                #expect(window.reservedBytes == capacity * 24)
            }
            let groups = held.flatMap { $0 }
            #expect(groups.map(\.name) == all)
            for (index, group) in groups.enumerated() {
                #expect(group.positions == (0...(index % 3)).map { UInt64(100 * index + $0) })
            }
        }
    }

    @Test func aNameWithMoreEventsThanTheWindowHoldsIsNeverSplit() {
        let all = Self.names(20)
        // Name 2 has 10 events, the others one each; the window holds 4.
        var events = all.enumerated().map { index, name in (name, UInt64(index)) }
        events += (1...9).map { (all[2], UInt64(100 + $0)) }
        let held = Self.windows(capacity: 4, offering: events.reversed())
        let groups = held.flatMap { $0 }
        #expect(groups.map(\.name) == all)
        #expect(groups[2].positions == [2] + (101...109).map(UInt64.init))
        #expect(held.count > 1)
    }

    @Test func aPresetEndLimitsTheWindowToTheNamesBelowIt() {
        let all = Self.names(6)
        var window = NameWindow(capacity: 16)
        window.preset(upperBound: all[3])
        for (index, name) in all.enumerated().reversed() { window.add(name, at: UInt64(index)) }
        window.sort()
        #expect(window.groups.map(\.name) == Array(all[..<3]))
        #expect(window.group(of: all[1])?.positions.map { $0 } == [1])
        #expect(window.group(of: all[4]) == nil)
        let advanced = window.advance()
        #expect(advanced)
        #expect(window.contains(all[3]) && !window.contains(all[2]))
    }

    @Test(arguments: [0, 1, 2, 17, 1_000, 5_000], [nil, 0] as [Int?])
    func theInPlaceSortAgreesWithTheStandardLibrary(count: Int, depthLimit: Int?) {
        var generator = SeededGenerator(seed: UInt64(count))
        // Few distinct names, so that names repeat and positions decide.
        let random = (0..<count).map { _ in
            NameWindow.Entry(
                name: (UInt64.random(in: 0...3, using: &generator), UInt64.random(in: 0...3, using: &generator)),
                position: UInt64.random(in: 0...50, using: &generator))
        }
        let ascending = (0..<count).map { NameWindow.Entry(name: (0, UInt64($0)), position: 0) }
        let same = [NameWindow.Entry](repeating: NameWindow.Entry(name: (7, 7), position: 7), count: count)
        for input in [random, ascending, Array(ascending.reversed()), same] {
            var sorted = input
            sorted.withUnsafeMutableBufferPointer { NameWindow.sortInPlace($0, depthLimit: depthLimit) }
            let expected = input.sorted { ($0.name.0, $0.name.1, $0.position) < ($1.name.0, $1.name.1, $1.position) }
            #expect(sorted.map { [$0.name.0, $0.name.1, $0.position] } == expected.map { [$0.name.0, $0.name.1, $0.position] })
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
