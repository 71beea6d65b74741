/// Why `ShareStore.backup(to:at:progress:)` or
/// `ShareStore.restore(from:to:at:options:progress:)` stopped before it
/// published anything: the destination was not made, and the store backed
/// up was not written to. Each case names the path at fault;
/// `description` is one line, what went wrong and what to do
/// (docs/OPERATIONS.md "Backups").
public enum BackupRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    /// The destination exists: a backup's directory must be new, and a
    /// restore's may be at most an empty directory. Nothing is ever
    /// replaced.
    case destinationExists(path: String)
    /// The backup's destination lies inside the directory of the store it
    /// copies: making it there would change that directory, which the
    /// store reads as a sign of a copy, and renew its replica id at its
    /// next open (docs/SYNC.md "Identity").
    case destinationInStore(path: String, store: String)
    /// The directory given to restore holds no backup: no `backup.json`
    /// beside a `data.mdb`, or no such directory.
    case notABackup(path: String)
    /// `backup.json` is there but is not a manifest this build reads: not
    /// JSON, or a field missing or of the wrong kind (docs/FORMAT.md
    /// "Backups").
    case damagedManifest(path: String)
    /// The manifest has a format newer than this build's.
    case unsupportedManifest(path: String, found: Int, supported: Int)
    /// The copy, after its expired shares were wiped, does not verify:
    /// `differences` mismatches, undecodable entries and gaps in all
    /// (`VerificationReport`). The store or the backup it came from is
    /// damaged.
    case copyDoesNotVerify(path: String, differences: Int)

    public var description: String {
        switch self {
        case .destinationExists(let path):
            "\(path) exists; a backup or a restore makes a new directory and never replaces one: "
                + "give a path that does not exist (or, to restore, an empty directory); nothing was written"
        case .destinationInStore(let path, let store):
            "\(path) is inside the store's directory \(store), which must hold nothing but the store's files: "
                + "give a path outside it; nothing was written"
        case .notABackup(let path):
            "\(path) holds no ShareLog backup (no backup.json beside a data.mdb); give a directory 'sharelog backup' made"
        case .damagedManifest(let path):
            "\(path)/backup.json is not a backup manifest this build reads; nothing was written; "
                + "restore another backup"
        case .unsupportedManifest(let path, let found, let supported):
            "\(path)/backup.json has format \(found), and this build reads up to \(supported); upgrade ShareLog; nothing was written"
        case .copyDoesNotVerify(let path, let differences):
            "the copy of \(path) does not verify (\(differences) difference\(differences == 1 ? "" : "s")), so nothing was written; "
                + "run 'sharelog verify' on it, and restore the store from a replica or another backup"
        }
    }
}
