import LMDB

/// Uploads through the gateway's write API, made exactly once per
/// `Idempotency-Key` (docs/HTTP.md "Exactly once").
extension ShareStore {
    /// Creates the share an upload asks for, unless its key came before.
    ///
    /// A read transaction, then at most one durable write transaction:
    /// - answers `.replayed` with the share the key made before, when the
    ///   key's entry holds the same fingerprint, and `.keyReused` when it
    ///   holds another, from the read: nothing is written;
    /// - answers `.replayed` too when a share named `claim.recordName` is
    ///   here already without an entry for the key (the same upload made on
    ///   another replica, and synced here), recording the entry for it;
    /// - otherwise logs the share's creation under `claim.recordName`,
    ///   records the key's entry with the creation's event id, and marks
    ///   the token used at the creation's time.
    ///
    /// The card and TTL are checked as `create(vCard:ttl:)` checks them,
    /// before anything else. Cost: `create`'s, plus two B-tree lookups and
    /// two puts in the same transaction.
    ///
    /// - Throws: `invalidVCard`, `invalidTTL`; `corruptShare` for a key
    ///   entry whose share is not in `shares`; nothing is written then.
    @available(*, noasync, message: "an upload blocks on a durable commit; call it from a thread of your own")
    public func create(vCard: [UInt8], ttl: Duration, claim: UploadClaim) throws(ShareLogError) -> UploadOutcome {
        let created = try prepareCreation(of: vCard, ttl: ttl, named: claim.recordName)
        // A retry is answered from a read: no write transaction, no commit
        // to announce. The write looks again, for a retry racing this one.
        if let answer = try read({ txn in try self.answer(to: claim, in: txn) }) { return answer }
        return try write { txn -> UploadOutcome in
            if let answer = try self.answer(to: claim, in: txn) { return answer }
            if let (share, event) = try self.existingShareIfAny(claim.recordName, in: txn) {
                try self.record(claim, firstSeen: created.createdAt, creation: event, in: txn)
                return .replayed(share)
            }
            let creation = try self.appendLocal(CollectionOfOne(.shareCreated(created)), in: txn)
            // One kind logged, so one id back.
            try self.record(claim, firstSeen: created.createdAt, creation: creation!, in: txn)
            try Self.markUsed(claim.token, at: created.createdAt, in: self.schema.tokens, txn)
            return .created(self.receipt(for: created))
        }
    }

    /// The answer the key's entry gives, nil when there is none.
    private func answer(to claim: UploadClaim, in txn: borrowing Transaction<some TransactionAccess>) throws -> UploadOutcome? {
        let key = IdempotencyEntry.key(token: claim.token, keyHash: claim.keyHash)
        let entry = try txn.withValue(forKey: key, in: schema.idempotency) { value in
            try key.withUnsafeBytes { key in try IdempotencyEntry.decode(key: key, value: value) }
        }
        guard let entry else { return nil }
        guard entry.fingerprint == claim.fingerprint else { return .keyReused(firstSeen: entry.firstSeen) }
        guard let (share, _) = try existingShareIfAny(entry.recordName, in: txn) else { throw ShareLogError.corruptShare(entry.recordName) }
        return .replayed(share)
    }

    /// Share `name` as its winning creation made it (record name, times,
    /// link), whether it is live or has ended since; nil when no creation
    /// of it is here. What the write API's owner's view shows beside
    /// `fetch`'s answer. One read transaction, O(log n).
    public func receipt(of name: RecordName) throws(ShareLogError) -> CreatedShare? {
        try read { txn in try existingShareIfAny(name, in: txn)?.share }
    }

    /// Puts the key's entry.
    private func record(_ claim: UploadClaim, firstSeen: Timestamp, creation: EventID, in txn: borrowing WriteTransaction) throws {
        let entry = IdempotencyEntry(
            token: claim.token, keyHash: claim.keyHash, fingerprint: claim.fingerprint, firstSeen: firstSeen,
            recordName: claim.recordName, creation: creation)
        try txn.put(entry.encodedValue(), forKey: entry.key, in: schema.idempotency)
    }

    /// The share `name` as its winning creation made it, or nil when no
    /// creation of it is here (unknown, or only a tombstone).
    private func existingShareIfAny(
        _ name: RecordName, in txn: borrowing Transaction<some TransactionAccess>
    ) throws -> (share: CreatedShare, event: EventID)? {
        guard let creation = try projection.state(of: name, in: txn)?.creation else { return nil }
        let share = CreatedShare(recordName: name, createdAt: creation.createdAt, expiresAt: creation.expiresAt, linkDomain: options.linkDomain)
        return (share, creation.event)
    }
}
