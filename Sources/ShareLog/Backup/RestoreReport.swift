/// What `ShareStore.restore(from:to:at:options:progress:)` made.
public struct RestoreReport: Hashable, Sendable {
    /// The restored store's directory, as given.
    public let path: String
    /// The backup's manifest: when it was taken, and from which replica.
    public let manifest: BackupManifest
    /// The time the restore expired shares at.
    public let at: Timestamp
    /// The restored store's replica id: new, neither the backed-up store's
    /// nor the backup's, so none of its events takes an id another
    /// replica holds.
    public let replicaID: ReplicaID
    /// The restored store's epoch, new too.
    public let epoch: Epoch
    /// Shares that ended between the backup and `at`: expired, and their
    /// cards wiped from every file before the store was moved into place.
    public let expired: Int
    /// Cards removed from the log (those of the shares above).
    public let redacted: Int
    /// Shares live at `at`, each with its card.
    public let shares: Int
    /// Log entries the restored store holds.
    public let events: Int
    /// Staging directories of earlier restores to the same path that died
    /// half-way, removed first.
    public let leftoversRemoved: Int
}
