import Foundation
import LMDB
import TestSupport
import Testing
@testable import ShareLog

/// A store whose `data.mdb` is overwritten in place with an older copy
/// keeps its inodes and its directory's ctime, so the open-time home check
/// cannot see it (docs/SYNC.md "Identity"). Its log then ends before
/// positions a follower's cursor has passed, and new events would land
/// there, never to be sent. The high-water file (docs/FORMAT.md) is the
/// sign of the restore that survives it.
@Suite struct InPlaceRestoreTests {
    private static func options(_ clock: ManualClock) -> ShareStore.Options {
        var options = ShareStore.Options()
        options.clock = clock
        options.environment.durability = .noSync
        return options
    }

    /// Overwrites `path` with `bytes` in place: same inode, and the
    /// directory is not touched, as `cp backup/data.mdb store/` does.
    private static func overwrite(_ path: String, with bytes: Data) throws {
        let before = try #require(try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? UInt64)
        let descriptor = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        try #require(written == bytes.count)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? UInt64 == before)
    }

    /// A follower's pull of `store`, as sync does it with the store's API:
    /// from its cursor, a snapshot when the cursor cannot be served, each
    /// batch applied with its cursor in one transaction.
    private static func pull(_ follower: ShareStore, from store: ShareStore, clock: ManualClock) throws {
        let peer = store.replicaID
        var cursor = try follower.cursor(of: peer)
        while true {
            let batch: ReplicationBatch
            do {
                batch = try store.replicationBatch(after: cursor?.position ?? 0, inEpoch: cursor?.epoch)
            } catch {
                guard case .snapshotRequired = error else { throw error }
                var after: UInt64 = 0, upTo: UInt64?, epoch: Epoch?
                repeat {
                    let part = try store.snapshotBatch(after: after)
                    upTo = upTo ?? part.lastPosition
                    epoch = epoch ?? part.epoch
                    try follower.apply(part.events)
                    after = part.through
                } while after < upTo!
                let reset = PeerCursor(peer: peer, epoch: epoch!, position: upTo!, lastSeen: clock.now())
                try follower.apply([], resetting: reset)
                cursor = reset
                continue
            }
            let next = PeerCursor(peer: peer, epoch: batch.epoch, position: batch.through, lastSeen: clock.now())
            try follower.apply(batch.events, advancing: next)
            cursor = next
            if batch.through >= batch.lastPosition { return }
        }
    }

    /// The issue's scenario: events, a copy of `data.mdb` taken with the
    /// store closed, more events that a follower pulls, the store closed
    /// and `data.mdb` overwritten with the copy. The store renews its
    /// identity on open, before it writes, so nothing it logs next lands
    /// at an (epoch, position) the follower's cursor has passed, and the
    /// follower's next pull brings every event.
    @Test func aStoreRestoredInPlaceRenewsItsIdentityAndAFollowerMissesNothing() throws {
        let directory = TemporaryDirectory()
        let clock = ManualClock()
        let path = directory.appending("store"), data = directory.appending("store/data.mdb")
        let follower = try ShareStore.open(at: directory.appending("follower"), creatingIfMissing: true, options: Self.options(clock))
        do {
            let store = try ShareStore.open(at: path, creatingIfMissing: true, options: Self.options(clock))
            for index in 1...2 { _ = try store.create(vCard: smallCard(index)) }
        }
        let copy = try Data(contentsOf: URL(fileURLWithPath: data))

        let (replica, epoch): (ReplicaID, Epoch) = try {
            let store = try ShareStore.open(at: path, options: Self.options(clock))
            for index in 3...5 { _ = try store.create(vCard: smallCard(index)) }
            try Self.pull(follower, from: store, clock: clock)
            return (store.replicaID, store.epoch)
        }()
        let passed = try #require(try follower.cursor(of: replica))
        #expect(passed.epoch == epoch && passed.position == 5)

        try Self.overwrite(data, with: copy)
        let restored = try ShareStore.open(at: path, options: Self.options(clock))
        #expect(try restored.lastPosition() == 2)
        #expect(restored.identityRenewal?.reason == .restoredInPlace(reached: 5, logEnd: 2))
        #expect(restored.identityRenewal?.previousReplica == replica)
        #expect(restored.replicaID != replica, "the restored store kept its replica id")
        #expect(restored.epoch != epoch, "the restored store kept its epoch")

        // Four new events, at positions 3 to 6: three of them at or before
        // the follower's cursor, which now belongs to another epoch.
        for index in 6...9 { _ = try restored.create(vCard: smallCard(index)) }
        let logged = try restored.events(after: 2)
        #expect(logged.map(\.position) == [3, 4, 5, 6])
        for entry in logged {
            #expect(!(restored.epoch == passed.epoch && entry.position <= passed.position), "\(entry.position)")
            #expect(entry.event.id.origin == restored.replicaID)
        }
        #expect(throws: ShareLogError.snapshotRequired(.epochUnknown(cursor: epoch, current: restored.epoch))) {
            try restored.replicationBatch(after: passed.position, inEpoch: passed.epoch)
        }
        // The follower's next pull brings them all. (Its cursor is keyed by
        // the replica id: under the new one it starts from the beginning;
        // under the old one it would resume after 5 and never get 3 to 5,
        // whose ids, under the old one, are those of the lost events it holds.)
        try Self.pull(follower, from: restored, clock: clock)
        let held = Dictionary(uniqueKeysWithValues: try follower.events(after: 0).map { ($0.event.id, $0.event) })
        for entry in try restored.events(after: 0) {
            #expect(held[entry.event.id] == entry.event, "the follower lacks the event at position \(entry.position)")
        }
    }

    /// The sign is exact, not a window: a copy that reaches every position
    /// that ever left the store lost nothing a peer holds, and the store
    /// keeps its identity; what it logs next was never seen by anyone.
    @Test func aRestoreThatLostNothingAPeerReadKeepsItsIdentity() throws {
        let directory = TemporaryDirectory()
        let clock = ManualClock()
        let path = directory.appending("store"), data = directory.appending("store/data.mdb")
        let follower = try ShareStore.open(at: directory.appending("follower"), creatingIfMissing: true, options: Self.options(clock))
        let (replica, epoch): (ReplicaID, Epoch) = try {
            let store = try ShareStore.open(at: path, creatingIfMissing: true, options: Self.options(clock))
            for index in 1...2 { _ = try store.create(vCard: smallCard(index)) }
            try Self.pull(follower, from: store, clock: clock)
            return (store.replicaID, store.epoch)
        }()
        let copy = try Data(contentsOf: URL(fileURLWithPath: data))
        do {
            // Two more that nobody reads, and a clip's read of an older share.
            let store = try ShareStore.open(at: path, options: Self.options(clock))
            let first = try store.events(after: 0)[0]
            guard case .shareCreated(let created) = first.event.kind else { Issue.record("not a creation"); return }
            #expect(try store.events(of: created.recordName).map(\.id) == [first.event.id])
            for index in 3...4 { _ = try store.create(vCard: smallCard(index)) }
        }
        try Self.overwrite(data, with: copy)
        let restored = try ShareStore.open(at: path, options: Self.options(clock))
        #expect(restored.identityRenewal == nil)
        #expect(restored.replicaID == replica && restored.epoch == epoch)
        _ = try restored.create(vCard: smallCard(5))
        try Self.pull(follower, from: restored, clock: clock)
        let cursor = try #require(try follower.cursor(of: replica))
        #expect(cursor.epoch == epoch && cursor.position == 3)
        #expect(Set(try follower.events(after: 0).map(\.event.id)) == Set(try restored.events(after: 0).map(\.event.id)))
    }

    /// A read that takes positions out of the store records them before it
    /// returns, without waiting for a close: a process killed after it
    /// sent a batch has already recorded it. `events(after:)` records
    /// nothing (its callers raise the mark themselves, when they send).
    @Test func aReadRecordsItsPositionsBeforeItReturns() throws {
        let test = try TestStore()
        let path = test.directory.appending("store")
        func recorded() throws -> HighWaterFile.Record? {
            try HighWaterFile.locked(in: path, durable: false) { file in
                if case .record(let record) = try file.read().contents { record } else { nil }
            }
        }
        #expect(try recorded()?.epoch == test.store.epoch)
        #expect(try recorded()?.position == 0)
        for index in 1...3 { _ = try test.store.create(vCard: smallCard(index)) }
        _ = try test.store.events(after: 0)
        #expect(try recorded()?.position == 0)
        let batch = try test.store.replicationBatch(after: 0, inEpoch: nil, limit: 1)
        #expect(batch.through == 1 && batch.lastPosition == 3)
        #expect(try recorded()?.epoch == test.store.epoch)
        #expect(try recorded()?.position == 3)
        let sequence = try recorded()?.sequence
        // Covered reads write nothing.
        _ = try test.store.replicationBatch(after: 1, inEpoch: test.store.epoch)
        _ = try test.store.snapshotBatch(after: 0)
        #expect(try recorded()?.sequence == sequence)
        _ = try test.store.create(vCard: smallCard(4))
        _ = try test.store.snapshotBatch(after: 0)
        #expect(try recorded()?.position == 4)
        // A clip's read records the position of this replica's own events
        // it returns; another replica's events are not this store's to record.
        let fifth = try test.store.create(vCard: smallCard(5))
        let foreign = ForeignReplica().created(at: test.clock.now(), ttl: .seconds(3600))
        try test.store.apply([foreign])
        guard case .shareCreated(let theirs) = foreign.kind else { Issue.record("not a creation"); return }
        _ = try test.store.events(of: theirs.recordName)
        #expect(try recorded()?.position == 4)
        _ = try test.store.events(of: fifth.recordName)
        #expect(try recorded()?.position == 6)
        _ = try test.store.create(vCard: smallCard(6))
        try test.store.raiseHighWater(through: 7)
        #expect(try recorded()?.position == 7)
    }

    /// A store made by an older build has no high-water file: its first
    /// open makes one and keeps the store's identity, though making the
    /// file changes the directory's ctime that `data-file` records.
    @Test func aStoreWithoutAHighWaterFileGetsOneAndKeepsItsIdentity() throws {
        let directory = TemporaryDirectory()
        let clock = ManualClock()
        let path = directory.appending("store")
        let (replica, epoch): (ReplicaID, Epoch) = try {
            let store = try ShareStore.open(at: path, creatingIfMissing: true, options: Self.options(clock))
            for index in 1...3 { _ = try store.create(vCard: smallCard(index)) }
            return (store.replicaID, store.epoch)
        }()
        // As an older build left it: no file, and `data-file` recorded without one.
        try FileManager.default.removeItem(atPath: HighWaterFile.path(in: path))
        do {
            let environment = try LMDB.Environment.open(at: path, databases: Schema.names)
            let meta = try environment.database("meta")
            let home = try ShareStore.homeIdentity(at: path)
            try environment.write { txn in try txn.put(home, forKey: MetaKey.dataFile, in: meta) }
        }

        let upgraded = try ShareStore.open(at: path, options: Self.options(clock))
        #expect(upgraded.identityRenewal == nil)
        #expect(upgraded.replicaID == replica && upgraded.epoch == epoch)
        let record = try HighWaterFile.locked(in: path, durable: false) { file in try file.read().contents }
        guard case .record(let record) = record else { Issue.record("no record: \(record)"); return }
        #expect(record.epoch == epoch && record.position == 3)
        #expect(try ShareStore.open(at: path, options: Self.options(clock)).identityRenewal == nil)
    }

    /// A `data.mdb` from before a renewal meets a file of another epoch:
    /// the store renews. A renewal records its epoch, so reopening after
    /// one renews nothing.
    @Test func aDataFileOfAnotherEpochThanTheFileRecordsRenews() throws {
        let directory = TemporaryDirectory()
        let clock = ManualClock()
        let path = directory.appending("store"), data = directory.appending("store/data.mdb")
        do {
            let store = try ShareStore.open(at: path, creatingIfMissing: true, options: Self.options(clock))
            _ = try store.create(vCard: smallCard(1))
        }
        let copy = try Data(contentsOf: URL(fileURLWithPath: data))
        let renewed: Epoch = try {
            let store = try ShareStore.open(at: path, options: Self.options(clock))
            return try store.renewIdentity().epoch
        }()
        do {
            let reopened = try ShareStore.open(at: path, options: Self.options(clock))
            #expect(reopened.identityRenewal == nil && reopened.epoch == renewed)
        }
        try Self.overwrite(data, with: copy)
        let restored = try ShareStore.open(at: path, options: Self.options(clock))
        #expect(restored.identityRenewal?.reason == .highWaterMismatch)
        #expect(restored.epoch != renewed)
    }

    /// Each write goes to the slot that does not hold the current record:
    /// a torn write leaves the previous record, and a file with no valid
    /// slot cannot vouch for the data file.
    @Test func aTornWriteLeavesThePreviousRecord() throws {
        let directory = TemporaryDirectory()
        let clock = ManualClock()
        let path = directory.appending("store")
        let epoch: Epoch = try {
            let store = try ShareStore.open(at: path, creatingIfMissing: true, options: Self.options(clock))
            for index in 1...2 { _ = try store.create(vCard: smallCard(index)) }
            _ = try store.replicationBatch(after: 0, inEpoch: nil)
            return store.epoch
        }()
        let file = HighWaterFile.path(in: path)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        #expect(bytes.count == 1024)
        // Records so far: 1 (made, no epoch), 2 (the open's), 3 (the read's).
        let current = try #require(HighWaterFile.decode(Array(bytes[0..<44])))
        #expect(current.sequence == 3 && current.epoch == epoch && current.position == 2)
        #expect(HighWaterFile.decode(Array(bytes[512..<556])).map { ($0.sequence, $0.position) } ?? (0, 9) == (2, 0))
        bytes[40] ^= 0xFF
        try Self.overwrite(file, with: bytes)
        let record = try HighWaterFile.locked(in: path, durable: false) { try $0.read().contents }
        #expect(record == .record(.init(sequence: 2, epoch: epoch, position: 0)))
        bytes[552] ^= 0xFF
        try Self.overwrite(file, with: bytes)
        #expect(try HighWaterFile.locked(in: path, durable: false) { try $0.read().contents } == .unreadable)
        let reopened = try ShareStore.open(at: path, options: Self.options(clock))
        #expect(reopened.identityRenewal?.reason == .highWaterMismatch)
    }
}
