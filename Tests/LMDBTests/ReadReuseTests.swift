import Dispatch
import Foundation
import Glibc
import TestSupport
import Testing
@testable import LMDB
import TestTraits

/// Reads renew idle reset transactions instead of beginning new ones
/// (`Options.idleReadTransactions`). The reader table is checked with
/// Debian's `mdb_stat -r`, from another process.
@Suite(.hangDeadline) struct ReadReuseTests {
    static func options(idle: Int, maxReaders: Int = 510, mapSize: Int? = nil) -> Environment.Options {
        var options = Environment.Options()
        options.idleReadTransactions = idle
        options.maxReaders = maxReaders
        if let mapSize { options.mapSize = mapSize }
        return options
    }

    /// (idleReadTransactions, maxReaders, slots kept idle after 6 nested reads)
    static let bounds = [(3, 510, 3), (16, 8, 2), (0, 510, 0)]

    @Test(arguments: bounds)
    func finishedReadsKeepAtMostTheirBoundOfReaderSlots(idle: Int, maxReaders: Int, kept: Int) throws {
        let store = try Store(options: Self.options(idle: idle, maxReaders: maxReaders))
        let inside = try nestedReads(6, of: store.env) { try ReaderSlots(of: store.directory.path).ours }
        #expect(inside.count == 6)
        #expect(inside.allSatisfy { $0.snapshot != nil })
        // The idle ones keep their slots, holding no snapshot.
        let after = try ReaderSlots(of: store.directory.path).ours
        #expect(after == Array(repeating: ReaderSlots.Slot(pid: getpid(), snapshot: nil), count: kept))
    }

    @Test func otherProcessesGetTheSlotsTheIdleTransactionsLeave() throws {
        // A quarter of 8 slots may stay idle here; the other 6 are free
        // after this process used all 8 at once.
        let store = try Store(options: Self.options(idle: 16, maxReaders: 8))
        try nestedReads(8, of: store.env) {}
        let holders = try (0..<6).map { _ in try Probe("hold-read", store.directory.path) }
        defer { for holder in holders { holder.kill() } }
        #expect(holders.map { $0.readLine() } == Array(repeating: "ready", count: 6))
        // And this process still reads, on an idle transaction.
        #expect(try store.env.read { _ in true })
    }

    @Test func aReadSeesEveryWriteThatReturnedBeforeIt() async throws {
        let store = try Store(options: Self.options(idle: 4))
        let env = store.env, data = store.data
        for value in UInt64(1)...100 {
            try await env.write { txn in try txn.put(key(value), forKey: Array("v".utf8), in: data) }
            // Tasks on any thread, on renewed transactions, see this commit.
            let seen = try await withThrowingTaskGroup(of: [UInt8]?.self) { group in
                for _ in 0..<4 {
                    group.addTask { try env.read { txn in try txn.value(forKey: Array("v".utf8), in: data) } }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(seen == Array(repeating: key(value), count: 4))
        }
    }

    @Test func readerTasksSeeOnlyCommittedStatesWhileWritesGrowTheMap() async throws {
        let store = try Store(options: Self.options(idle: 4, mapSize: 256 << 10))
        let env = store.env, data = store.data
        let initialMap = env.info.mapSize
        try ConcurrencyTests.writePair(0, in: store)
        let torn = Counter(), regressed = Counter(), reads = Counter()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<16 {
                group.addTask {
                    var last: UInt64 = 0
                    for _ in 0..<300 {
                        let (a, b) = try env.read { txn in
                            (try txn.value(forKey: Array("a".utf8), in: data), try txn.value(forKey: Array("b".utf8), in: data))
                        }
                        let value = a.map { $0.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) } } ?? .max
                        reads.increment()
                        if a != b { torn.increment() }
                        if value < last { regressed.increment() }
                        last = value
                        await Task.yield()
                    }
                }
            }
            group.addTask {
                // Each write also adds 16 KiB, so the 256 KiB map grows
                // several times while the readers run.
                for value in UInt64(1)...60 {
                    let bytes = withUnsafeBytes(of: value) { Array($0) }
                    try await env.write { txn in
                        try txn.put(bytes, forKey: Array("a".utf8), in: data)
                        for part in 0..<4 {
                            try txn.put([UInt8](repeating: 7, count: 4096), forKey: key(value * 4 + UInt64(part)), in: data)
                        }
                        try txn.put(bytes, forKey: Array("b".utf8), in: data)
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(env.info.mapSize > initialMap)
        #expect(reads.count == 16 * 300)
        #expect(torn.count == 0)
        #expect(regressed.count == 0)
        // No slot leaked: once every read has finished and 6 more run at
        // once, exactly the 4 the pool keeps are taken.
        try nestedReads(6, of: env) {}
        let slots = try ReaderSlots(of: store.directory.path).slots
        #expect(slots.filter { $0.pid == getpid() }.count == 4, "the reader table: \(slots)")
    }

    @Test func aRenewedTransactionAdoptsTheMapAnotherProcessGrew() throws {
        var options = MapGrowthTests.smallMap()
        options.idleReadTransactions = 16
        let store = try Store(options: options)
        let data = store.data
        try store.env.write { txn in try txn.put([1], forKey: [1], in: data) }
        // Leave an idle transaction, so the next read renews it.
        #expect(try store.env.read { txn in try txn.count(in: data) } == 1)
        #expect(try ReaderSlots(of: store.directory.path).ours.count == 1)
        let probe = try Probe.run("grow", store.directory.path, "\(2 << 20)")
        #expect(probe.status == 0)
        // The renew meets MDB_MAP_RESIZED, adopts the map and renews again.
        #expect(try store.env.read { txn in try txn.count(in: data) } == 1 + (2 << 20) / 4096)
        #expect(try ReaderSlots(of: store.directory.path).ours.count == 1)
    }

    /// A process that opens and closes a store's `lock.mdb` itself (as a
    /// test that read every new file under /tmp once did) drops every POSIX
    /// lock liblmdb holds on it for the process. The next process to open
    /// the store then finds none, resets the reader table and takes the
    /// slot an idle transaction kept. Renewing that transaction fails with
    /// `MDB_BAD_RSLOT`, and aborting it would free the other process's slot:
    /// the read drops it and begins a transaction of its own instead.
    @Test func anIdleTransactionWhoseSlotAnotherProcessTookIsDroppedNotAborted() throws {
        let store = try Store(options: Self.options(idle: 4))
        #expect(try store.env.read { _ in true })
        #expect(try ReaderSlots(of: store.directory.path).ours == [ReaderSlots.Slot(pid: getpid(), snapshot: nil)])
        close(open(store.directory.appending("lock.mdb"), O_RDONLY | O_CLOEXEC))
        let holder = try Probe("hold-read", store.directory.path)
        defer { holder.kill() }
        #expect(holder.readLine() == "ready")
        let other = holder.process.processIdentifier
        #expect(try ReaderSlots(of: store.directory.path).slots.map(\.pid) == [other], "the table was reset")
        #expect(try store.env.read { txn in try txn.count(in: store.data) } == 0)
        let slots = try ReaderSlots(of: store.directory.path).slots
        #expect(slots.contains { $0.pid == other && $0.snapshot != nil }, "the reader table: \(slots)")
    }
}

@Suite(.hangDeadline) struct ReadReuseLifecycleTests {
    @Test func aForkedChildLeavesTheParentsIdleTransactionsAlone() throws {
        let dir = TemporaryDirectory()
        // The probe is single-threaded until it forks, so forking it is safe.
        let result = try Probe.run("fork-idle", dir.path)
        #expect(result.status == 0)
        #expect(result.lastLine == "child=refused parent=ok slots=3")
    }

    @Test func closingAnEnvironmentFreesItsIdleTransactions() throws {
        // Measured in a probe, because other tests allocate in this process.
        let dir = TemporaryDirectory()
        let result = try Probe.run("idle-close", dir.path, "200")
        #expect(result.status == 0)
        let leaked = result.lastLine.flatMap { $0.split(separator: "=").last.flatMap { Int($0) } }
        #expect(leaked != nil && leaked! < 64, "heap bytes kept per open, 4 reads and close: \(result.lastLine ?? "none")")
    }
}
