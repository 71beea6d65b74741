/// Where a backup or a restore is, for a progress line: each stage is
/// reported once as it begins, and `verifying` again as the log is read.
public enum BackupStage: Hashable, Sendable {
    /// Copying the store (a backup) or the backup's file (a restore) into
    /// the staging directory beside the destination.
    case copying
    /// Expiring the shares ended at the backup's or restore's time, and
    /// wiping their cards from the copy's file.
    case expiring
    /// Verifying the copy: log entries read so far.
    case verifying(entriesRead: Int)
    /// Writing the result and moving it into place.
    case publishing
}
