import Dispatch
import Foundation
import Synchronization
import Testing
@testable import LMDB
import TestTraits

/// Run under ThreadSanitizer too: `swift test --sanitize=thread --filter ConcurrencyTests`.
@Suite(.hangDeadline) struct ConcurrencyTests {
    /// Writes `a` and `b` together, so a snapshot always sees them equal.
    static func writePair(_ value: UInt64, in store: Store) throws {
        let data = store.data
        try store.env.write { txn in
            try txn.put(withUnsafeBytes(of: value) { Array($0) }, forKey: Array("a".utf8), in: data)
            try txn.put(withUnsafeBytes(of: value) { Array($0) }, forKey: Array("b".utf8), in: data)
        }
    }

    @Test func manyReaderTasksAndTheWriterSeeConsistentSnapshots() async throws {
        let store = try Store()
        let data = store.data
        try Self.writePair(0, in: store)
        let torn = Counter(), reads = Counter()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<16 {
                group.addTask {
                    for _ in 0..<500 {
                        let equal = try store.env.read { txn in
                            try txn.value(forKey: Array("a".utf8), in: data) == txn.value(forKey: Array("b".utf8), in: data)
                        }
                        reads.increment()
                        if !equal { torn.increment() }
                    }
                }
            }
            group.addTask {
                for value in UInt64(1)...200 {
                    let bytes = withUnsafeBytes(of: value) { Array($0) }
                    try await store.env.write { txn in
                        try txn.put(bytes, forKey: Array("a".utf8), in: data)
                        try txn.put(bytes, forKey: Array("b".utf8), in: data)
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(reads.count == 16 * 500)
        #expect(torn.count == 0)
    }

    @Test func readersKeepValidBytesWhileTheMapGrowsUnderThem() throws {
        var options = Environment.Options()
        options.mapSize = 256 << 10
        let store = try Store(options: options)
        let data = store.data
        let pattern = [UInt8]((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try store.env.write { txn in try txn.put(pattern, forKey: Array("pattern".utf8), in: data) }
        let writing = Atomic<Bool>(true)
        let corrupt = Counter(), reads = Counter()
        let initialMap = store.env.info.mapSize
        DispatchQueue.concurrentPerform(iterations: 9) { worker in
            if worker == 0 {
                // Grow the map several times while the readers run.
                for round in 0..<8 {
                    try! store.env.write { txn in
                        for number in 0..<64 {
                            try txn.put(pattern, forKey: key(UInt64(round * 64 + number)), in: data)
                        }
                    }
                }
                writing.store(false, ordering: .releasing)
                return
            }
            repeat {
                // Each reader holds map pointers across a slow check; a remap
                // under it would make them dangle.
                let intact = try! store.env.read { txn in
                    try txn.withValue(forKey: Array("pattern".utf8), in: data) { bytes in
                        (0..<8).allSatisfy { _ in bytes.elementsEqual(pattern) }
                    }
                }
                reads.increment()
                if intact != true { corrupt.increment() }
            } while writing.load(ordering: .acquiring)
        }
        #expect(store.env.info.mapSize > initialMap)
        #expect(reads.count >= 8)
        #expect(corrupt.count == 0)
    }

    @Test func anotherProcessReadsConsistentSnapshotsWhileThisOneWrites() throws {
        let store = try Store()
        try Self.writePair(0, in: store)
        let target: UInt64 = 400
        let reader = try Probe("read-pairs", store.directory.path, "\(target)")
        #expect(reader.readLine() == "ready")
        for value in 1...target { try Self.writePair(value, in: store) }
        let result = reader.finish()
        #expect(result.status == 0)
        let fields = Dictionary(uniqueKeysWithValues: (result.lastLine ?? "").split(separator: " ").map {
            let pair = $0.split(separator: "=")
            return (String(pair[0]), Int(pair[1]) ?? -1)
        })
        #expect(fields["torn"] == 0)
        #expect(fields["distinct", default: 0] >= 2)
    }
}
