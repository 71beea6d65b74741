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
    /// replicated as that id's, like any peer's. The high-water file then
    /// records the new epoch (a crash before that costs one more renewal
    /// at the next open, never a missed one). Other opens of the store, in
    /// other processes or instances, keep the id they opened with: an
    /// operator's renewal is `renewIdentityAlone()`, which refuses while
    /// any exists.
    @discardableResult
    public func renewIdentity(reason: IdentityRenewal.Reason = .requested) throws(ShareLogError) -> IdentityRenewal {
        let home = try Self.storage { try Self.homeIdentity(at: path) }
        let renewal = try write { txn in try Self.renew(reason: reason, home: home, schema: self.schema, in: txn) }
        identity.withLock { $0 = (renewal.replica, renewal.epoch) }
        try raiseHighWater(to: 0, of: renewal.epoch)
        return renewal
    }

    /// `renewIdentity()`, for an operator who knows the store was restored
    /// (`sharelog renew-identity`): only while no other open for writing
    /// of the store exists, in any process, since each would go on
    /// announcing and publishing under the id it opened with; opens for
    /// writing wait while it runs. An open that renewed by itself (its
    /// `identityRenewal`) is reported, not renewed again: a second renewal
    /// would cost every peer a second snapshot.
    ///
    /// - Throws: `openElsewhere` while another open for writing exists,
    ///   with nothing written; `closed` after `close()`.
    public func renewIdentityAlone() throws(ShareLogError) -> IdentityRenewal {
        // One operation: `close()` gives up the signal's lock, so it waits
        // for this to take the lock back as it ends.
        try lifetime.run { () throws(ShareLogError) -> IdentityRenewal in
            if let renewal = identityRenewal { return renewal }
            guard let signal = commitSignal, let renewal = try signal.whileSoleWriter({ () throws(ShareLogError) in try renewIdentity() }) else {
                throw ShareLogError.openElsewhere(path: path)
            }
            return renewal
        }
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

    /// Where the store lives, as the file system tells it apart (28 bytes):
    /// the data file's inode, the store directory's inode, and the time the
    /// directory last changed (its ctime: seconds, then nanoseconds).
    ///
    /// Nothing a store does changes its directory once `data.mdb` and
    /// `lock.mdb` exist, and no tool can set a ctime back. So a copy, a
    /// move, or a restore that makes the directory again (`rm -rf` then
    /// `cp -r`, even when the file system hands out the same inode
    /// numbers again, as ext4 does) gives another identity; so does adding
    /// or removing a file in the store's directory, which costs a needless
    /// but harmless new replica id (the store's own high-water file is made
    /// once, before its home is recorded, and then written in place). A
    /// restore that overwrites `data.mdb` in place keeps it: the high-water
    /// file catches that one (`settleHighWater`).
    /// Device numbers are left out: they can change across reboots and
    /// container restarts for the same files.
    static func homeIdentity(at path: String) throws -> [UInt8] {
        var file = stat(), directory = stat()
        guard stat((path as NSString).appendingPathComponent("data.mdb"), &file) == 0, stat(path, &directory) == 0 else {
            throw ShareLogError.storeNotFound(path: path)
        }
        return Key.bigEndian(UInt64(file.st_ino)) + Key.bigEndian(UInt64(directory.st_ino))
            + Key.bigEndian(Int64(directory.st_ctim.tv_sec)) + Key.bigEndian(UInt32(directory.st_ctim.tv_nsec))
    }
}
