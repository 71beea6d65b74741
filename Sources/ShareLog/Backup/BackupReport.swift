/// What `ShareStore.backup(to:at:progress:)` made.
public struct BackupReport: Hashable, Sendable {
    /// The backup's directory, as given.
    public let path: String
    /// Its manifest, as written to `backup.json`: when it was taken, what
    /// it holds, and until when it may be kept.
    public let manifest: BackupManifest
    /// Shares that had ended by the backup's time and that the store had
    /// not swept yet: the backup expired them, and holds none of their
    /// cards.
    public let expired: Int
    /// Cards removed from the copy before it was written: those of the
    /// shares above, and of shares ended before whose cards the store had
    /// not compacted yet.
    public let redacted: Int
    /// The size of the backup's `data.mdb`, in bytes.
    public let bytes: Int
    /// Staging directories of earlier backups to the same path that died
    /// half-way, removed first (docs/OPERATIONS.md "Backups").
    public let leftoversRemoved: Int
}
