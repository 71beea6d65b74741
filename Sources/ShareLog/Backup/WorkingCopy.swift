import Glibc
import LMDB

/// A copy of a store in a staging directory (`StagingDirectory`), opened
/// for writing and made fit to publish as a backup or a restored store:
/// a replica of its own, holding no card of a share ended at its time in
/// any byte of its file, and verified.
struct WorkingCopy {
    /// The copy, open for writing; the caller closes it.
    let store: ShareStore
    /// Shares the copy expired: ended at its time, not yet swept.
    let expired: Int
    /// Cards the copy's compaction removed from its log.
    let redacted: Int
    /// Log entries the copy holds.
    let events: Int
    /// Pending shares, each live at the copy's time: the copy holds each
    /// one's card, and no other card.
    let shares: Int
    /// The latest `expiresAt` of those shares; nil when there are none.
    let deleteBy: Timestamp?

    /// Opens the store copied into `directory` and readies it, in order:
    ///
    /// 1. **Its own replica id, before it writes anything.** The open
    ///    renews the id (a copy's home is not its source's); if it kept
    ///    one of `foreign` (the source's, the backup's), it is renewed
    ///    here. A copy that wrote under its source's id could make an
    ///    event id its source makes too, with other content, and sync
    ///    keeps whichever it met first.
    /// 2. **No card of an ended share.** A sweep at `now` expires every
    ///    share ended then; the compaction that follows removes their
    ///    cards, and those of shares revoked or expired before and not yet
    ///    compacted, from the log, and its scrub, which runs even when no
    ///    card was waiting, zeroes every byte of the file the last commit
    ///    does not use: free pages, page gaps and the ends of overflow
    ///    runs, which a compacting copy fills with bytes of other pages.
    ///    Nothing else reads the copy, so no free page is deferred.
    /// 3. **Verified**: the projections agree with the log.
    ///
    /// - Throws: `backupRefused(.copyDoesNotVerify(path: source, …))` when
    ///   it does not verify; what the steps throw. The store is closed
    ///   before anything is thrown.
    static func prepare(
        at directory: String, now: Timestamp, options: ShareStore.Options, foreign: Set<ReplicaID>, source: String,
        progress: ((BackupStage) -> Void)?
    ) throws(ShareLogError) -> WorkingCopy {
        var options = options
        options.clock = FixedClock(now)
        options.environment.readOnly = false
        let store = try ShareStore.open(at: directory, options: options)
        do {
            return try ready(store, now: now, foreign: foreign, source: source, progress: progress)
        } catch {
            store.close()
            throw error
        }
    }

    /// Steps 1 to 3 of `prepare` on the open copy.
    private static func ready(
        _ store: ShareStore, now: Timestamp, foreign: Set<ReplicaID>, source: String, progress: ((BackupStage) -> Void)?
    ) throws(ShareLogError) -> WorkingCopy {
        if foreign.contains(store.replicaID) { try store.renewIdentity() }
        progress?(.expiring)
        let sweep = try store.sweep(at: now, batchSize: 1000, progress: nil, cancellation: nil)
        let compaction = try store.compact(batchSize: 1000, progress: nil, cancellation: nil)
        if let deferred = compaction.scrub?.freePagesDeferred, deferred > 0 {
            throw .storage(LMDBError(code: EBUSY, context: "\(deferred) free pages of the copy at \(store.path) are held by a reader"))
        }
        progress?(.verifying(entriesRead: 0))
        let verification = try store.verify(windowSize: 150_000, chunkSize: 10_000, progress: { progress?(.verifying(entriesRead: $0)) }, cancellation: nil)
        guard verification.isConsistent else {
            let differences = verification.mismatches.count + verification.unlistedMismatches
                + verification.corruptEvents.count + verification.positionGaps.count
            throw .backupRefused(.copyDoesNotVerify(path: source, differences: differences))
        }
        let held = try Self.held(in: store)
        return WorkingCopy(
            store: store, expired: sweep.expired, redacted: compaction.redacted, events: held.events, shares: held.shares,
            deleteBy: held.deleteBy)
    }

    /// The log entries, the pending shares and the latest `expiresAt` of
    /// those (the last `expiry` key's: keys sort by `expiresAt`) of
    /// `store`, in one read: O(log n).
    private static func held(in store: ShareStore) throws(ShareLogError) -> (events: Int, shares: Int, deleteBy: Timestamp?) {
        let schema = store.schema
        return try store.read { txn in
            let deleteBy = try txn.withCursor(on: schema.expiry) { cursor -> Timestamp? in
                guard let entry = try cursor.last() else { return nil }
                guard let pending = Key.pendingShare(key: entry.key, value: entry.value) else {
                    throw ShareLogError.corruptKey(database: "expiry", key: Array(entry.key), reason: "not a pending share's entry")
                }
                return pending.expiresAt
            }
            let shares = try ShareProjection.counter(MetaKey.liveCount, schema: schema, in: txn)
            return (try txn.count(in: schema.log), Int(clamping: shares), deleteBy)
        }
    }
}
