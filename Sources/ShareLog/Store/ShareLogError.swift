import LMDB
import ShareClip

/// The failures a ShareLog user acts on, and the only error `ShareStore`
/// throws: every public operation is `throws(ShareLogError)`, so a caller
/// can switch over the cases exhaustively. A cause is kept as a value
/// (`VCardError`, `AppClipLinkError`, `LMDBError`, a reason enum), never
/// flattened into a string. Each description says what went wrong and what
/// to do next.
public enum ShareLogError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No share has this record name (or it was never synced here).
    case notFound(RecordName)
    /// The share ended at `at`; its card is gone.
    case expired(RecordName, at: Timestamp, reason: ExpiryReason)
    /// The bytes are not a vCard ShareLog accepts; the `VCardError` says
    /// why. Nothing was written.
    case invalidVCard(VCardError)
    /// A time to live outside 1 minute ... 30 days, in seconds.
    case invalidTTL(seconds: Int64)
    /// Not a record name (a UUID).
    case invalidRecordName(String)
    /// Not an App Clip link this store accepts; the `AppClipLinkError` says why.
    case invalidLink(AppClipLinkError)
    /// No store has been initialised at the path.
    case storeNotFound(path: String)
    /// The store was written by a newer ShareLog.
    case unsupportedStoreVersion(found: UInt32, supported: UInt32)
    /// The store has an older format that a read-only open cannot upgrade.
    case upgradeRequired(found: UInt32)
    /// A log entry does not decode, or is not the event the store's
    /// indexes name there: the store's files were damaged.
    case corruptEvent(position: UInt64, reason: CorruptEventReason)
    /// A projection entry does not decode.
    case corruptShare(RecordName)
    /// A meta entry does not decode.
    case corruptMeta(String)
    /// A key in `database` breaks the store format: the wrong length, a
    /// value no store writes, or an index entry its projection contradicts.
    /// `key` holds its raw bytes.
    case corruptKey(database: String, key: [UInt8], reason: String)
    /// An event from another replica breaks a rule a local write keeps
    /// (its card, its size, its time to live, a reserved id); nothing of
    /// its batch was written.
    case invalidEvent(EventID, reason: InvalidEventReason)
    /// An event from another replica claims this replica's id and is not
    /// in its log (this store has made `madeHere`): either the store was
    /// restored in place from an older copy together with its high-water
    /// file, or the sender is wrong. Nothing was written, and the id is
    /// kept; if the store was restored, `ShareStore.renewIdentity()` gives
    /// it a new replica id, after which those events apply as a peer's.
    case ownOriginConflict(EventID, madeHere: UInt64)
    /// A peer's cursor cannot be served from this log; the peer must
    /// bootstrap from a snapshot (docs/SYNC.md).
    case snapshotRequired(SnapshotReason)
    /// Another open for writing of the store, in this process or another,
    /// keeps the replica id it opened with: an operator's renewal waits
    /// until it is the only one (`ShareStore.renewIdentityAlone()`).
    /// Nothing was written.
    case openElsewhere(path: String)
    /// `adopt(from:at:)` refused the store it was given; nothing was
    /// written to either store.
    case handoffRefused(HandoffRefusal)
    /// `backup(to:at:progress:)` or `restore(from:to:at:options:progress:)`
    /// refused its destination or its source, or the copy failed to
    /// verify; nothing was published, and the store backed up was not
    /// written to.
    case backupRefused(BackupRefusal)
    /// The task awaiting a long async operation (`sweep`, `compact`,
    /// `verify`) was cancelled: it stopped at its next batch, every batch
    /// committed before stays, and running it again finishes the job.
    case cancelled
    /// The storage engine failed: a full disk, a full reader table, a
    /// damaged or foreign file, a store already open with other options. The
    /// LMDB error is the cause, and its description says what to do.
    case storage(LMDBError)
    /// A token `ShareStore.addToken` refuses, with the reason; nothing was
    /// written.
    case invalidToken(String)
    /// Another token already has this name; nothing was written.
    case tokenNameTaken(String)
    /// No token has this name; nothing was written.
    case tokenNotFound(String)
    /// The store was closed in this process (`ShareStore.close()`), or its
    /// environment was: nothing was read or written.
    case closed(path: String)

    /// The message of `invalidTTL`, with the time to live as its caller
    /// wrote it (`0d`, `2592060s`): the error itself holds seconds, in
    /// which a zero or an odd count of a unit has lost the unit given.
    public static func invalidTTLMessage(_ ttl: String) -> String {
        "a time to live of \(ttl) is outside 1 minute to 30 days; use a value like 90m, 12h or 7d"
    }

    /// `seconds` in the largest unit that divides it, as `--ttl` takes it:
    /// `31d`, `90m`, `45s`.
    private static func duration(_ seconds: Int64) -> String {
        for (unit, size) in [("d", Int64(86_400)), ("h", 3_600), ("m", 60)] where seconds != 0 && seconds % size == 0 {
            return "\(seconds / size)\(unit)"
        }
        return "\(seconds)s"
    }

    public var description: String {
        switch self {
        case .notFound(let name):
            "no share \(name) in this store; check the id, or sync from the replica that made it"
        case .expired(let name, let at, let reason):
            "share \(name) expired at \(at.iso8601) (\(reason)); ask its owner to share the card again"
        case .invalidVCard(let error):
            // The cause is a sentence or more; the note before it is one too.
            "not a vCard ShareLog accepts, so nothing was written. \(error)"
        case .invalidTTL(let seconds):
            Self.invalidTTLMessage(Self.duration(seconds))
        case .invalidRecordName(let text):
            "'\(text)' is not a record name; record names are UUIDs like 6f1c2a9e-58b4-4d9a-9f0e-2b7c1d3e4f50"
        case .invalidLink(let error):
            "not a share link: \(error)"
        case .storeNotFound(let path):
            "no ShareLog store at \(path); run 'sharelog init' or pass --store"
        case .unsupportedStoreVersion(let found, let supported):
            "the store has format \(found) but this build reads up to \(supported); upgrade ShareLog"
        case .upgradeRequired(let found):
            "the store has format \(found), which this build upgrades in place when it opens the store for writing; "
                + "run 'sharelog upgrade' (or any command that writes), then open it read-only again"
        case .corruptEvent(let position, let reason):
            "log entry \(position) is corrupt (\(reason)); run 'sharelog verify' and restore from a replica"
        case .corruptShare(let name):
            "the stored state of share \(name) is corrupt; run 'sharelog verify'"
        case .corruptMeta(let key):
            "the store's '\(key)' entry is corrupt; restore from a replica"
        case .corruptKey(let database, let key, let reason):
            "the store's '\(database)' database holds a damaged key \(Key.hex(key)) "
                + "(\(reason)); the write that met it was not committed. Run 'sharelog verify' to see all the damage, then restore the store from a replica"
        case .invalidEvent(let id, let reason):
            // The reason is a clause, or ends with a card's own sentences.
            "event \(id) from a peer was refused, and nothing of its batch was written: \(reason)"
        case .ownOriginConflict(let id, let made):
            "event \(id) claims this replica's id, and this store never made it (it has made \(made) events): refused, "
                + "and the id kept. If this store was restored in place from an older copy together with its high-water file, "
                + "run 'sharelog renew-identity' on it; otherwise the sender is wrong (docs/SYNC.md \"Identity\")"
        case .snapshotRequired(let reason):
            "the peer must start again from a snapshot: \(reason)"
        case .openElsewhere(let path):
            "the store at \(path) is open for writing elsewhere (a serve, http, relay or sync --follow, or an app embedding it), "
                + "which would go on under the old replica id: stop it, then run this again; nothing was written"
        case .handoffRefused(let refusal):
            "\(refusal)"
        case .backupRefused(let refusal):
            "\(refusal)"
        case .cancelled:
            "the operation was cancelled; the batches it committed stay, and running it again finishes the job"
        case .storage(let error):
            "the store's storage failed: \(error)"
        case .invalidToken(let reason):
            "not a token this store takes, so nothing was written: \(reason)"
        case .tokenNameTaken(let name):
            "a token named '\(name)' already exists (revoked tokens keep their names), so nothing was written; choose another name"
        case .tokenNotFound(let name):
            "no token named '\(name)' in this store, so nothing was written; 'sharelog token list' shows the names"
        case .closed(let path):
            "the store at \(path) was closed in this process, so nothing was read or written; open it again to use it"
        }
    }
}
