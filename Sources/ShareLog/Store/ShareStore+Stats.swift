import Foundation
import LMDB

extension ShareStore {
    /// Counts and sizes, from one snapshot. O(due) for the due count, O(1)
    /// for the rest.
    public func stats(at time: Timestamp? = nil) throws -> StoreStats {
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
                due: try txn.scan(schema.expiry, in: Key.due(at: now)) { _ in .proceed },
                pendingRedactions: try txn.count(in: schema.pendingRedactions),
                fileBytes: fileBytes,
                usedBytes: (info.lastPage + 1) * pageSize,
                mapBytes: info.mapSize)
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
}

/// A store's identity, counts and sizes.
public struct StoreStats: Sendable, Hashable {
    public let replicaID: ReplicaID
    public let epoch: Epoch
    /// Entries in the log.
    public let events: Int
    /// The local sequence of the last entry.
    public let lastPosition: UInt64
    /// Shares not yet expired in the projection (due ones included until swept).
    public let live: Int
    /// Expired shares (tombstones).
    public let expired: Int
    /// Live shares whose time is up: the next sweep's work.
    public let due: Int
    /// Log entries still holding an expired share's card: the next compaction's work.
    public let pendingRedactions: Int
    /// The size of data.mdb.
    public let fileBytes: Int
    /// Bytes of data.mdb in use (up to the last page written).
    public let usedBytes: Int
    /// The current LMDB map size.
    public let mapBytes: Int
}
