import Foundation

/// Bringing a backup back (docs/OPERATIONS.md "Backups").
extension ShareStore {
    /// Makes a new store at `path` from the backup in `backup` (made by
    /// `backup(to:at:progress:)`), as it should be at `time` (default:
    /// `options.clock`'s now), and leaves it closed.
    ///
    /// **A replica of its own.** The restored store takes a new replica id
    /// and epoch, neither the backed-up store's nor the backup's: events it
    /// makes never take an id another replica holds, and its peers read
    /// it from the start (docs/SYNC.md "Identity"). Restoring one backup
    /// twice makes two replicas.
    ///
    /// **Forgets.** Every share that ended between the backup and `time`
    /// is expired, and its card wiped from every byte of the store's files
    /// (sweep, compaction, scrub) before the store appears at `path`; so a
    /// restore never serves or keeps the card of a share ended at `time`,
    /// however old the backup.
    ///
    /// **Nothing half-written.** The backup's `data.mdb` is copied into a
    /// staging directory beside `path`, opened there, expired, compacted
    /// and verified, and moved to `path` by one `rename`, or not at all;
    /// the backup is only read. The store is then opened once where it
    /// lives, which records its home (and, as the move changed that home,
    /// renews its identity once more: `replicaID` is the one it keeps).
    /// A restore killed half-way leaves its staging directory, which the
    /// next backup or restore beside `path` removes.
    ///
    /// `options` are those the store is opened with (its file mode, map
    /// size); its clock gives the default `time`, and `readOnly` is
    /// ignored.
    ///
    /// - Throws: `backupRefused` before anything is written: `notABackup`
    ///   when `backup` holds no `backup.json` and `data.mdb`,
    ///   `damagedManifest` or `unsupportedManifest` for a manifest this
    ///   build does not read, `destinationExists` when `path` exists and
    ///   is not an empty directory; `copyDoesNotVerify` when the restored
    ///   copy does not verify (nothing published); `storage` for a file
    ///   that cannot be written.
    @discardableResult
    @available(*, noasync, message: "a restore blocks while it copies the backup; run it on a thread of its own")
    public static func restore(
        from backup: String, to path: String, at time: Timestamp? = nil, options: Options = Options(),
        progress: ((BackupStage) -> Void)? = nil
    ) throws(ShareLogError) -> RestoreReport {
        let now = time ?? options.clock.now()
        let manifest = try BackupManifest.read(from: backup)
        try StagingDirectory.refuseExisting(path, allowingEmptyDirectory: true)
        let staging = try StagingDirectory(beside: path, purpose: "restore")
        defer { staging.discard() }
        let work = try staging.makeDirectory("store")
        progress?(.copying)
        try StagingDirectory.copyFile(
            from: (backup as NSString).appendingPathComponent("data.mdb"), to: (work as NSString).appendingPathComponent("data.mdb"))
        try StoreSidecars.syncDirectory(work)
        let copy = try WorkingCopy.prepare(
            at: work, now: now, options: options, foreign: [manifest.sourceReplicaID, manifest.replicaID], source: backup,
            progress: progress)
        copy.store.close()
        progress?(.publishing)
        try staging.publish("store")
        var settled = options
        settled.clock = FixedClock(now)
        settled.environment.readOnly = false
        let restored = try open(at: path, options: settled)
        defer { restored.close() }
        return RestoreReport(
            path: path, manifest: manifest, at: now, replicaID: restored.replicaID, epoch: restored.epoch, expired: copy.expired,
            redacted: copy.redacted, shares: copy.shares, events: copy.events, leftoversRemoved: staging.leftoversRemoved)
    }
}
