import Foundation

/// Backups that forget (docs/OPERATIONS.md "Backups"): a copy of a store
/// never holds the card of a share that had ended when it was taken.
extension ShareStore {
    /// Writes a backup of this store into the new directory `destination`:
    /// `data.mdb`, a store, and `backup.json`, its manifest
    /// (`BackupManifest`, docs/FORMAT.md "Backups").
    ///
    /// **Hot and consistent.** The copy is of one read snapshot
    /// (`Environment.copyCompacted(into:)`, LMDB's compacting copy):
    /// writers in every process go on while it runs, and it holds every
    /// event the store held at that moment and none after. This store is
    /// never written to; a read-only open will do.
    ///
    /// **Forgets.** The backup holds no byte of the card of any share that
    /// had ended by `time` (default: now), whether or not this store has
    /// swept or compacted it yet. It holds the card of every share live at
    /// `time`, until the backup is deleted: `manifest.deleteBy` is the last
    /// of those shares' ends. So the first copy is made in a staging
    /// directory beside `destination`, and is there (`WorkingCopy`) given
    /// a replica id of its own (so that nothing is ever logged under this
    /// store's), swept at `time`, compacted and scrubbed, and verified;
    /// then a second compacting copy of it, which holds only what the
    /// scrubbed copy uses, becomes the backup's `data.mdb`, as small as its
    /// data. The store's side files (`high-water`, `commit.signal`,
    /// `maintenance.lock`, `lock.mdb`) are not in it: they belong to one
    /// store in one place, and the open that restores it makes new ones.
    ///
    /// **Nothing half-written.** `destination` appears whole, by one
    /// `rename` of the staging directory's result, after every file in it
    /// and the directory were synced, or not at all. A backup that fails
    /// removes its staging directory; one killed leaves it (it may hold
    /// ended shares' cards), and the next backup or restore beside the same
    /// destination removes it (`leftoversRemoved`).
    ///
    /// Cost: O(store): two sequential copies of the data, a scrub and a
    /// verification of the copy. This store's writers never wait for it;
    /// its read snapshot lasts for the first copy, and map growth in this
    /// process waits for that, as for any read.
    ///
    /// - Parameters:
    ///   - destination: a path that does not exist, outside this store's
    ///     directory; its parent is made when missing (0700).
    ///   - progress: called as each stage begins (`BackupStage`), on the
    ///     calling thread.
    /// - Throws: `backupRefused(.destinationExists)` when `destination`
    ///   exists, `destinationInStore` when it lies inside this store's
    ///   directory, before anything is written; `backupRefused(.copyDoesNotVerify)`
    ///   when the copy does not verify (the store is damaged: `verify()` it);
    ///   `storage` for a file that cannot be written (a full disk). In
    ///   every case `destination` is not made.
    @discardableResult
    @available(*, noasync, message: "a backup blocks while it copies the store; run it on a thread of its own")
    public func backup(to destination: String, at time: Timestamp? = nil, progress: ((BackupStage) -> Void)? = nil) throws(ShareLogError) -> BackupReport {
        let now = time ?? clock.now()
        let source = replicaID
        try StagingDirectory.refuseExisting(destination, allowingEmptyDirectory: false)
        let home = StagingDirectory.resolved(path)
        guard !StagingDirectory.resolved(destination).hasPrefix(home.hasSuffix("/") ? home : home + "/") else {
            throw .backupRefused(.destinationInStore(path: destination, store: path))
        }
        let staging = try StagingDirectory(beside: destination, purpose: "backup")
        defer { staging.discard() }
        let work = try staging.makeDirectory("work")
        progress?(.copying)
        try copyEnvironment(into: work)
        let copy = try WorkingCopy.prepare(at: work, now: now, options: Options(), foreign: [source], source: path, progress: progress)
        defer { copy.store.close() }
        progress?(.publishing)
        let result = try staging.makeDirectory("backup")
        try copy.store.copyEnvironment(into: result)
        let manifest = BackupManifest(
            takenAt: now, sourceReplicaID: source, replicaID: copy.store.replicaID, events: copy.events, shares: copy.shares,
            deleteBy: copy.deleteBy)
        try manifest.write(into: result)
        try StoreSidecars.syncDirectory(result)
        let bytes = (try? FileManager.default.attributesOfItem(atPath: (result as NSString).appendingPathComponent("data.mdb"))[.size] as? Int) ?? 0
        try staging.publish("backup")
        return BackupReport(
            path: destination, manifest: manifest, expired: copy.expired, redacted: copy.redacted, bytes: bytes,
            leftoversRemoved: staging.leftoversRemoved)
    }
}
