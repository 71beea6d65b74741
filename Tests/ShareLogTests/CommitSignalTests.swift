import Foundation
import LMDB
import SampleCards
import Synchronization
import Testing
import TestSupport
@testable import ShareLog
import TestTraits

/// `commits()` hears of commits made through another `ShareStore` (here a
/// second instance in this process; `CommitSignalProcessTests` does it with
/// processes) through the commit signal, with no polling: the fallback is
/// an hour, so nothing but the signal can announce within the deadline.
@Suite(.hangDeadline) struct CommitSignalTests {
    static func open(_ path: String, fallback: Duration = .seconds(3600)) throws -> ShareStore {
        var options = ShareStore.Options()
        options.environment.durability = .noSync
        options.commitWatchFallback = fallback
        return try ShareStore.open(at: path, creatingIfMissing: true, options: options)
    }

    /// Collects what `store.commits()` announces, from a task on a thread
    /// of its own: this test blocks one thread of the cooperative pool while
    /// it waits, and in the parallel run other tests held the other, so a
    /// task on the pool never read the first announcement (CI, 60 s).
    final class Announcements: Sendable {
        private final class Positions: Sendable {
            let list = Mutex<[UInt64]>([])
        }

        private let positions = Positions()
        private let task: Task<Void, Never>

        convenience init(_ store: ShareStore) throws {
            self.init(try store.commits())
        }

        init(_ stream: AsyncStream<UInt64>) {
            let positions = self.positions
            task = Task.detached(executorPreference: CommitWatchExecutor.shared) {
                for await position in stream { positions.list.withLock { $0.append(position) } }
            }
        }

        deinit { task.cancel() }

        /// Everything announced so far, in order.
        var all: [UInt64] { positions.list.withLock { $0 } }

        /// Waits, suspended (holding no thread of the cooperative pool,
        /// which the parallel run's other tests need), until `position` was
        /// announced.
        func wait(for position: UInt64) async throws {
            try await Deadline.wait(until: "position \(position) is announced", timeout: .seconds(60)) {
                positions.list.withLock { $0.contains(position) }
            }
        }
    }

    @Test func aCommitThroughAnotherInstanceIsAnnounced() async throws {
        let directory = TemporaryDirectory("commit-signal")
        let path = directory.appending("store")
        let watching = try Self.open(path), writing = try Self.open(path)
        let announced = try Announcements(watching)
        try await announced.wait(for: 0)

        _ = try await writing.create(vCard: SampleCard.make(index: 1), ttl: .seconds(3600))
        try await announced.wait(for: 1)
        _ = try await writing.create(vCards: (2...4).map { SampleCard.make(index: $0) }, ttl: .seconds(3600))
        try await announced.wait(for: 4)
        // In order, each once: the watcher publishes only larger positions.
        let seen = announced.all
        #expect(seen == seen.sorted() && Set(seen).count == seen.count, "\(seen)")
    }

    /// A commit made between a subscriber's first read and the moment the
    /// watcher's thread starts is announced at once: the thread waits from
    /// the counter as it was before that read, not as it finds it. (It
    /// took the counter as it found it, and such a commit waited for the
    /// fallback, an hour here: CI, under load.) The signal rings here
    /// between the baseline and the start, as another process would.
    @Test func aCommitBeforeTheWatcherStartsIsAnnounced() async throws {
        let directory = TemporaryDirectory("commit-signal-race")
        let store = try Self.open(directory.appending("store"))
        let signal = try #require(store.commitSignal)
        let feed = CommitFeed()
        let watcher = CommitWatcher(signal: signal, feed: feed, fallback: .seconds(3600))
        defer { watcher.stop() }
        let baseline = watcher.baseline
        let stream = feed.subscribe { 0 }
        let announced = Announcements(stream)
        signal.ring()
        watcher.start(from: baseline) { 1 }
        try await announced.wait(for: 1)
    }

    @Test func theSignalIsAFileBesideTheStoreThatEveryCommitMoves() throws {
        let directory = TemporaryDirectory("commit-signal-file")
        let path = directory.appending("store")
        let store = try Self.open(path)
        let file = path + "/commit.signal"
        #expect((try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) == 64)
        let before = try Self.counter(file)
        _ = try store.create(vCard: SampleCard.make(index: 1), ttl: .seconds(3600))
        _ = try store.revoke(try store.create(vCard: SampleCard.make(index: 2), ttl: .seconds(3600)).recordName)
        #expect(try Self.counter(file) == before &+ 3)
    }

    /// A store an older build made has a high-water file but no signal, and
    /// a power cut can leave a signal just made empty: the open that makes
    /// it (again) changes the directory's ctime, which the store's home
    /// records, and must take that change for its own, not for a copy's.
    @Test(arguments: ["missing", "empty"])
    func anOpenThatMakesTheSignalKeepsTheStoresIdentity(signal: String) throws {
        let directory = TemporaryDirectory("commit-signal-identity")
        let path = directory.appending("store")
        let file = path + "/commit.signal"
        let replica = try Self.open(path).replicaID
        // As an older build or a power cut left it, with `data-file` recorded after.
        if signal == "missing" { try FileManager.default.removeItem(atPath: file) } else { #expect(truncate(file, 0) == 0) }
        do {
            let environment = try LMDB.Environment.open(at: path, databases: Schema.names)
            let meta = try environment.database("meta")
            let home = try ShareStore.homeIdentity(at: path)
            try environment.write { txn in try txn.put(home, forKey: MetaKey.dataFile, in: meta) }
        }

        let reopened = try Self.open(path)
        #expect(reopened.identityRenewal == nil)
        #expect(reopened.replicaID == replica)
        #expect((try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) == 64)
        // And the next open, too, finds the home it recorded.
        #expect(try Self.open(path).identityRenewal == nil)
    }

    /// The counter, as the file holds it (native-endian u32 at offset 0).
    static func counter(_ file: String) throws -> UInt32 {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        return bytes.prefix(4).withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
    }
}
