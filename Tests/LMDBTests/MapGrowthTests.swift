import Dispatch
import Foundation
import TestSupport
import Testing
@testable import LMDB
import TestTraits

@Suite(.hangDeadline) struct MapGrowthTests {
    static func smallMap(max: Int = 256 << 30) -> Environment.Options {
        var options = Environment.Options()
        options.mapSize = 256 << 10
        options.maxMapSize = max
        return options
    }

    @Test func aSmallMapTakesALargeWriteByGrowingAndRerunning() throws {
        let store = try Store(options: Self.smallMap())
        let data = store.data
        let runs = Counter()
        try store.env.write { txn in
            runs.increment()
            for number in 0..<256 {
                try txn.put([UInt8](repeating: UInt8(number), count: 4096), forKey: key(UInt64(number)), in: data)
            }
        }
        #expect(runs.count >= 2)
        #expect(store.env.info.mapSize > 1 << 20)
        let stored = try store.contents()
        #expect(stored.count == 256)
        #expect(stored[key(200)] == [UInt8](repeating: 200, count: 4096))
    }

    /// A store filling batch after batch: once one batch has shown how far
    /// a batch advances the file, the map grows before the next one, which
    /// then runs once instead of filling the map midway and running again.
    @Test func aBatchLikeTheLastRunsOnceAsTheStoreFills() throws {
        let store = try Store(options: Self.smallMap())
        let data = store.data
        var runsPerBatch: [Int] = []
        for batch in 0..<8 {
            let runs = Counter()
            // 40 pages of 4 KiB each: 160 KiB of a 256 KiB map at first.
            try store.env.write { txn in
                runs.increment()
                for number in 0..<40 {
                    try txn.put([UInt8](repeating: 7, count: 4000), forKey: key(UInt64(batch * 40 + number)), in: data)
                }
            }
            runsPerBatch.append(runs.count)
        }
        #expect(runsPerBatch.dropFirst() == [1, 1, 1, 1, 1, 1, 1])
        #expect(try store.contents().count == 8 * 40)
    }

    @Test func growthSurvivesAClosureThatSwallowsTheMapFullError() throws {
        let store = try Store(options: Self.smallMap())
        let data = store.data
        try store.env.write { txn in
            for number in 0..<256 {
                // Ignoring the error must not commit a half-written batch.
                try? txn.put([UInt8](repeating: 1, count: 4096), forKey: key(UInt64(number)), in: data)
            }
        }
        #expect(try store.contents().count == 256)
    }

    @Test func aWriteBeyondTheMaximumMapFailsAndWritesNothing() throws {
        let store = try Store(options: Self.smallMap(max: 512 << 10))
        let data = store.data
        #expect(throws: LMDBError.mapFull) {
            try store.env.write { txn in
                for number in 0..<256 {
                    try txn.put([UInt8](repeating: 1, count: 4096), forKey: key(UInt64(number)), in: data)
                }
            }
        }
        #expect(try store.contents().isEmpty)
        try store.env.write { txn in try txn.put([1], forKey: [1], in: data) }
        #expect(try store.contents() == [[1]: [1]])
    }

    @Test func anotherProcessGrowingTheMapIsAdopted() throws {
        let store = try Store(options: Self.smallMap())
        let data = store.data
        try store.env.write { txn in try txn.put([1], forKey: [1], in: data) }
        let probe = try Probe.run("grow", store.directory.path, "\(2 << 20)")
        #expect(probe.status == 0)
        // The other process committed pages beyond this process's map, so
        // the next transactions here meet MDB_MAP_RESIZED and must adopt it.
        #expect(try store.contents().count == 1 + (2 << 20) / 4096)
        try store.env.write { txn in try txn.put([2], forKey: [2], in: data) }
        #expect(store.env.info.mapSize >= 2 << 20)
    }
}

@Suite(.hangDeadline) struct GroupGrowthTests {
    @Test func aGroupOfQueuedWritesGrowsTheMapTogether() async throws {
        let store = try Store(options: MapGrowthTests.smallMap())
        let env = store.env, data = store.data
        // Hold the writer so the next writes run as one group of nested
        // transactions: each fits the map alone, together they do not.
        let hold = try await WriterHold(env)
        let writes = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for number in 0..<16 {
                    group.addTask {
                        try await env.write { txn in
                            for part in 0..<8 {
                                let value = [UInt8](repeating: UInt8(number), count: 4096)
                                try txn.put(value, forKey: key(UInt64(number * 8 + part)), in: data)
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        try await Deadline.wait(until: "16 writes queue") { env.writerQueueLength >= 16 }
        try await hold.release()
        try await writes.value
        #expect(try store.contents().count == 16 * 8)
        #expect(env.info.mapSize > 256 << 10)
    }

    @Test func anotherProcessGrowingTheMapIsAdoptedByTheNextWrite() throws {
        let store = try Store(options: MapGrowthTests.smallMap())
        let data = store.data
        try store.env.write { txn in try txn.put([1], forKey: [1], in: data) }
        let probe = try Probe.run("grow", store.directory.path, "\(2 << 20)")
        #expect(probe.status == 0)
        // No read first: the writer meets MDB_MAP_RESIZED itself and must adopt it.
        try store.env.write { txn in try txn.put([2], forKey: [2], in: data) }
        #expect(store.env.info.mapSize >= 2 << 20)
        #expect(try store.contents().count == 2 + (2 << 20) / 4096)
    }
}
