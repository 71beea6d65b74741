import Foundation
import LMDB
import SampleCards
import Synchronization
import TestSupport
@testable import ShareLog

/// A clock tests move by hand.
final class ManualClock: WallClock {
    private let milliseconds: Atomic<Int64>

    init(_ start: Timestamp = Timestamp(milliseconds: 1_800_000_000_000)) {
        milliseconds = Atomic(start.milliseconds)
    }

    func now() -> Timestamp { Timestamp(milliseconds: milliseconds.load(ordering: .relaxed)) }

    func advance(by duration: Duration) {
        let target = now().advanced(by: duration).milliseconds
        milliseconds.store(target, ordering: .relaxed)
    }
}

/// A store in a fresh temporary directory with a manual clock.
struct TestStore {
    let directory: TemporaryDirectory
    let clock: ManualClock
    let store: ShareStore

    init(label: String = #function, durable: Bool = false) throws {
        directory = TemporaryDirectory(label)
        clock = ManualClock()
        var options = ShareStore.Options()
        options.clock = clock
        // Most tests need no fsync; the crash harness checks durability.
        if !durable { options.environment.durability = .noSync }
        store = try ShareStore.open(at: directory.appending("store"), creatingIfMissing: true, options: options)
    }

    /// Every key and value of one of the store's databases, in key order.
    func contents(of database: KeyPath<Schema, Database>) throws -> [[UInt8]: [UInt8]] {
        let db = store.schema[keyPath: database]
        return try store.environment.read { txn in
            var all: [[UInt8]: [UInt8]] = [:]
            try txn.scan(db) { entry in
                all[Array(entry.key)] = Array(entry.value)
                return .proceed
            }
            return all
        }
    }

    /// The raw bytes of every file in the store's directory but `lock.mdb`,
    /// which holds pids and transaction ids, never card bytes: opening and
    /// closing it in this process would drop the locks liblmdb holds on it
    /// (docs/LMDB.md, "What the caller must not do").
    func rawFiles() throws -> [String: Data] {
        let path = directory.appending("store")
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: path) where name != "lock.mdb" {
            files[name] = try Data(contentsOf: URL(fileURLWithPath: (path as NSString).appendingPathComponent(name)))
        }
        return files
    }
}

/// A card small enough to sit inline in LMDB's pages.
func smallCard(_ index: Int = 0) -> [UInt8] { SampleCard.make(index: index) }

/// Events from a made-up replica, for tests that need many shares fast.
final class ForeignReplica: Sendable {
    let id = ReplicaID.random()
    private let counter = Atomic<UInt64>(0)

    func event(_ kind: Event.Kind) -> Event {
        Event(id: EventID(origin: id, counter: counter.add(1, ordering: .relaxed).newValue), kind: kind)
    }

    func created(_ name: RecordName = .random(), vCard: [UInt8] = smallCard(), at: Timestamp, ttl: Duration) -> Event {
        event(.shareCreated(ShareCreated(recordName: name, vCard: vCard, createdAt: at, expiresAt: at.advanced(by: ttl))))
    }
}
