import Foundation
import LMDB

extension ShareStore {
    /// Counts and sizes, from one snapshot. O(due) for the due count, O(1)
    /// for the rest.
    public func stats(at time: Timestamp? = nil) throws(ShareLogError) -> StoreStats {
        let now = time ?? clock.now()
        let fileBytes = (try? FileManager.default.attributesOfItem(
            atPath: (path as NSString).appendingPathComponent("data.mdb"))[.size] as? Int) ?? 0
        let info = environment.info
        return try read { txn in
            let pageSize = try txn.statistics(of: schema.log).pageSize
            return StoreStats(
                replicaID: replicaID, epoch: epoch,
                events: try txn.count(in: schema.log),
                lastPosition: try log.lastPosition(in: txn),
                live: try Self.count(MetaKey.liveCount, schema: schema, in: txn),
                expired: try Self.count(MetaKey.expiredCount, schema: schema, in: txn),
                due: try dueCount(at: now, in: txn),
                pendingRedactions: try txn.count(in: schema.pendingRedactions),
                fileBytes: fileBytes,
                usedBytes: (info.lastPage + 1) * pageSize,
                mapBytes: info.mapSize,
                readerSlotsUsed: info.readersUsed,
                readerSlots: info.maxReaders)
        }
    }

    /// A meta counter as an `Int`.
    ///
    /// - Throws: `ShareLogError.corruptMeta` for a count no store reaches.
    private static func count(_ key: [UInt8], schema: Schema, in txn: borrowing ReadTransaction) throws -> Int {
        guard let count = Int(exactly: try ShareProjection.counter(key, schema: schema, in: txn)) else {
            throw ShareLogError.corruptMeta(String(decoding: key, as: UTF8.self))
        }
        return count
    }

    /// Shares due at `now` that no sweep has expired yet: the expiry index
    /// up to `now`, where an entry indexed at 0 (a time before 1970) counts
    /// only if its exact `expiresAt` (the entry's value) is due. Never
    /// throws for a damaged entry, so stats still describe a damaged store.
    private func dueCount(at now: Timestamp, in txn: borrowing ReadTransaction) throws -> Int {
        var due = 0
        try txn.scan(schema.expiry, in: Key.due(at: now)) { entry in
            // A damaged entry still counts, as it did before it was damaged:
            // stats reports, and verify names the damage.
            if Key.pendingShare(key: entry.key, value: entry.value).map({ $0.expiresAt <= now }) ?? true { due += 1 }
            return .proceed
        }
        return due
    }
}
