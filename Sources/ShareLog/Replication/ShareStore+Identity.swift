import Foundation
import LMDB

/// A replica id names exactly one store's history: two stores that write
/// under one id would make different events with the same ids, and each
/// peer would keep whichever it heard of first. So a store that may be a
/// copy of another, or an older copy of itself, takes a new id and a new
/// epoch before it writes (docs/SYNC.md "Identity").
extension ShareStore {
    /// Gives this store a new replica id and epoch, in one durable
    /// transaction: its next events count from 1 under the new id, and
    /// every peer's cursor on it (bound to the old epoch) asks for a
    /// snapshot. Events it made under the old id stay in its log and are
    /// replicated as that id's, like any peer's.
    @discardableResult
    public func renewIdentity(reason: IdentityRenewal.Reason = .requested) throws -> IdentityRenewal {
        let home = try Self.dataFileIdentity(at: path)
        let renewal = try write { txn in try Self.renew(reason: reason, home: home, schema: self.schema, in: txn) }
        identity.withLock { $0 = (renewal.replica, renewal.epoch) }
        return renewal
    }

    /// Writes a new replica id, epoch and data-file identity, and restarts
    /// the origin counter, in `txn`.
    static func renew(
        reason: IdentityRenewal.Reason, home: [UInt8], schema: Schema, in txn: borrowing WriteTransaction
    ) throws -> IdentityRenewal {
        let previous = try txn.value(forKey: MetaKey.replica, in: schema.meta)
        guard let previous, previous.count == 16 else { throw ShareLogError.corruptMeta("replica") }
        let renewal = IdentityRenewal(
            previousReplica: ReplicaID(bytes: previous), replica: .random(), epoch: .random(), reason: reason)
        try txn.put(renewal.replica.bytes, forKey: MetaKey.replica, in: schema.meta)
        try txn.put(renewal.epoch.bytes, forKey: MetaKey.epoch, in: schema.meta)
        try txn.put(home, forKey: MetaKey.dataFile, in: schema.meta)
        try txn.delete(MetaKey.originSequence, in: schema.meta)
        return renewal
    }

    /// The identity of the store's data file: its inode number, 8 bytes
    /// big-endian. A copy, a move to another file system or a restore that
    /// writes a new file gets another; a restore that overwrites the file
    /// in place keeps it (a peer then catches the store: `ownOriginConflict`).
    /// The device number is left out: it can change across reboots and
    /// container restarts for the same file.
    static func dataFileIdentity(at path: String) throws -> [UInt8] {
        var status = stat()
        let file = (path as NSString).appendingPathComponent("data.mdb")
        guard stat(file, &status) == 0 else { throw ShareLogError.storeNotFound(path: path) }
        return Key.bigEndian(UInt64(status.st_ino))
    }
}
