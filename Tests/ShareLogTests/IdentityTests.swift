import Foundation
import TestSupport
import Testing
@testable import ShareLog

/// A replica id names one store's history (docs/SYNC.md "Identity"): a
/// copied or restored store takes a new id and epoch before it writes, so
/// it never makes an event whose id its peers already hold.
@Suite struct IdentityTests {
    private static func options(_ clock: ManualClock) -> ShareStore.Options {
        var options = ShareStore.Options()
        options.clock = clock
        options.environment.durability = .noSync
        return options
    }

    @Test func aCopiedStoreTakesANewReplicaIDAndEpoch() throws {
        let directory = TemporaryDirectory()
        let clock = ManualClock()
        let original = directory.appending("original"), copy = directory.appending("copy")
        let (replica, epoch): (ReplicaID, Epoch) = try {
            let store = try ShareStore.open(at: original, creatingIfMissing: true, options: Self.options(clock))
            _ = try store.create(vCard: smallCard(1))
            return (store.replicaID, store.epoch)
        }()
        try FileManager.default.copyItem(atPath: original, toPath: copy)

        let copied = try ShareStore.open(at: copy, options: Self.options(clock))
        let renewal = try #require(copied.identityRenewal)
        #expect(renewal.reason == .fileChanged)
        #expect(renewal.previousReplica == replica)
        #expect(copied.replicaID == renewal.replica && copied.replicaID != replica)
        #expect(copied.epoch == renewal.epoch && copied.epoch != epoch)
        // Its next event counts from 1 under the new id; the copied event keeps the old one.
        _ = try copied.create(vCard: smallCard(2))
        #expect(try copied.events(after: 0).map(\.event.id) == [
            EventID(origin: replica, counter: 1), EventID(origin: copied.replicaID, counter: 1),
        ])
        // Opened again, the copy is at home: no second renewal.
        #expect(try ShareStore.open(at: copy, options: Self.options(clock)).identityRenewal == nil)
        let reopened = try ShareStore.open(at: original, options: Self.options(clock))
        #expect(reopened.identityRenewal == nil && reopened.replicaID == replica && reopened.epoch == epoch)
    }

    @Test func aRestoredStoreNeverReusesAnEventIDItsPeersHold() throws {
        let directory = TemporaryDirectory()
        let clock = ManualClock()
        let path = directory.appending("store"), backup = directory.appending("backup")
        let store = try ShareStore.open(at: path, creatingIfMissing: true, options: Self.options(clock))
        _ = try store.create(vCard: smallCard(1))
        try FileManager.default.copyItem(atPath: path, toPath: backup)
        _ = try store.create(vCard: smallCard(2))
        let held = try store.events(after: 0).map(\.event.id)
        // The store is lost and restored from the backup, as a new file.
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.copyItem(atPath: backup, toPath: path)
        let restored = try ShareStore.open(at: path, options: Self.options(clock))
        #expect(restored.identityRenewal?.reason == .fileChanged)
        _ = try restored.create(vCard: smallCard(3))
        let made = try restored.events(after: 1).map(\.event.id)
        #expect(made.count == 1 && !held.contains(made[0]))
    }

    @Test func renewingTheIdentityStartsANewOriginAndInvalidatesPeerCursors() throws {
        let test = try TestStore()
        _ = try test.store.create(vCard: smallCard(1))
        let before = (test.store.replicaID, test.store.epoch)
        let renewal = try test.store.renewIdentity()
        #expect(renewal.previousReplica == before.0)
        #expect(test.store.replicaID == renewal.replica && test.store.epoch == renewal.epoch)
        _ = try test.store.create(vCard: smallCard(2))
        #expect(try test.store.events(after: 1).map(\.event.id) == [EventID(origin: renewal.replica, counter: 1)])
        // A peer's cursor on the old epoch must start again from a snapshot.
        #expect(throws: ShareLogError.snapshotRequired(.epochUnknown(cursor: before.1, current: renewal.epoch))) {
            try test.store.replicationBatch(after: 1, inEpoch: before.1)
        }
        // The old id is now a peer's like any other: its events are held.
        #expect(try test.store.apply(try test.store.events(after: 0).prefix(1).map(\.event)).duplicates == 1)
        #expect(try test.store.verify().isConsistent)
    }
}
