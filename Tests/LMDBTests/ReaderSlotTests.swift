import Foundation
import TestSupport
import Testing
@testable import LMDB
import TestTraits

@Suite(.hangDeadline) struct ReaderSlotTests {
    static func fewReaders(_ count: Int) -> Environment.Options {
        var options = Environment.Options()
        options.maxReaders = count
        return options
    }

    /// Starts `count` probes that each take a reader slot, then kills them.
    func leaveDeadReaders(_ count: Int, in store: Store) throws {
        let probes = try (0..<count).map { _ in try Probe("hold-read", store.directory.path) }
        for probe in probes { #expect(probe.readLine() == "ready") }
        for probe in probes { probe.kill() }
    }

    @Test func slotsOfProcessesThatDiedInsideAReadAreReclaimedOnDemand() throws {
        let store = try Store(options: Self.fewReaders(4))
        let data = store.data
        try store.env.write { txn in try txn.put([1], forKey: [1], in: data) }
        try leaveDeadReaders(4, in: store)
        // Every slot belongs to a dead process: the read meets
        // MDB_READERS_FULL, clears the stale slots and goes on.
        #expect(try store.env.read { txn in try txn.value(forKey: [1], in: data) } == [1])
    }

    @Test func clearingStaleReadersCountsThem() throws {
        let store = try Store(options: Self.fewReaders(8))
        try leaveDeadReaders(3, in: store)
        #expect(try store.env.clearStaleReaders() == 3)
        #expect(try store.env.clearStaleReaders() == 0)
    }

    @Test func aFullReaderTableOfLiveReadersIsATypedError() throws {
        let store = try Store(options: Self.fewReaders(3))
        let env = store.env
        // Nested reads on one thread each hold a slot (MDB_NOTLS).
        #expect(throws: LMDBError.readersFull) {
            try env.read { _ in try env.read { _ in try env.read { _ in try env.read { _ in } } } }
        }
        // The slots are free again afterwards.
        #expect(try env.read { _ in true })
    }
}

@Suite(.hangDeadline) struct StaleReaderOpenTests {
    @Test func openingClearsSlotsOfProcessesThatDied() throws {
        let dir = TemporaryDirectory()
        // A live reader keeps the lock file in use, so this open must clear
        // the table itself rather than getting a fresh one.
        let live = try Probe("hold-read", dir.path)
        defer { live.kill() }
        #expect(live.readLine() == "ready")
        let dead = try (0..<3).map { _ in try Probe("hold-read", dir.path) }
        for probe in dead { #expect(probe.readLine() == "ready") }
        for probe in dead { probe.kill() }
        let env = try Environment.open(at: dir.path, databases: ["data"])
        #expect(try env.clearStaleReaders() == 0)
    }
}
