import LMDB

/// Folds events into the derived databases: `eventIndex`, `shares`,
/// `expiry`, `pendingRedactions` and the meta counters (store format 2,
/// docs/FORMAT.md).
///
/// The rules make `shares` independent of the order events arrive in:
/// - of two creations for one record name, the smaller event id wins;
/// - of two revocations, the earlier time, then the smaller event id;
/// - a TTL end is stored only while no creation is known (a tombstone that
///   arrived first); with a creation, the TTL end is its `expiresAt`;
/// - a share is pending (in `expiry`, counted live) while its winning
///   creation holds its card and no `shareExpired` of any reason is
///   logged, and never again after such an end;
/// - a winning creation that arrives without its card (redacted where it
///   came from, which happens once its share ended there, or to a losing
///   rival) is never pending: the share reads as ended (`arrivedRedacted`)
///   until its end arrives, or a creation holding a card wins over it.
///
/// Ending a pending share touches `expiry`, `pendingRedactions` and the
/// counters, never `shares`, so a sweep writes no page chosen by a random
/// record name. Every method runs inside the caller's write transaction.
///
/// The meta counters change in memory and are written by `finish`, once
/// per transaction: a projection is made for one transaction, and
/// `finish` must run before it commits.
struct ShareProjection {
    let schema: Schema
    private var liveDelta: Int64 = 0
    private var expiredDelta: Int64 = 0

    init(schema: Schema) { self.schema = schema }

    /// Writes the counters' changes; call once, before the commit.
    func finish(in txn: borrowing WriteTransaction) throws {
        if liveDelta != 0 { try adjustCounter(MetaKey.liveCount, by: liveDelta, in: txn) }
        if expiredDelta != 0 { try adjustCounter(MetaKey.expiredCount, by: expiredDelta, in: txn) }
    }

    /// Records `event`, stored at log position `position`, in every derived database.
    mutating func apply(_ event: Event, at position: UInt64, in txn: borrowing WriteTransaction) throws {
        try index(event.id, at: position, in: txn)
        switch event.kind {
        case .shareCreated(let created):
            try applyCreation(created, id: event.id, at: position, in: txn)
        case .shareExpired(let expired):
            try applyExpiry(expired, id: event.id, in: txn)
        case .unknown:
            break
        }
    }

    /// Records the TTL end of a share the caller found pending in `expiry`,
    /// logged at `position`: the same outcome as `apply`, without reading
    /// the share's state (a pending share has a creation, so its TTL end
    /// changes nothing in `shares`), and without removing the share's
    /// `expiry` entry, which the caller deletes at the cursor that found it.
    ///
    /// - Throws: `ShareLogError.corruptKey` when the entry names a log
    ///   position that holds no creation of the share: a damaged index
    ///   must not end, or redact, another share.
    mutating func applyTTLEnd(_ id: EventID, at position: UInt64, of pending: PendingShare, in txn: borrowing WriteTransaction) throws {
        try index(id, at: position, in: txn)
        guard let holdsCard = try creationHoldsCard(at: pending.creationPosition, of: pending.name, in: txn) else {
            throw ShareLogError.corruptKey(
                database: "expiry", key: pending.key.bytes,
                reason: "no pending share \(pending.name) was created at log position \(pending.creationPosition)")
        }
        try retire(pending, holdingCard: holdsCard, in: txn)
    }

    /// Adds `id` to `eventIndex`.
    ///
    /// - Throws: when the id is there already. Callers log only ids not
    ///   logged before (`EventLog.append` skips duplicates, and a sweep ends
    ///   only pending shares, which no TTL end has reached), so only a local
    ///   counter behind the log (`corruptMeta("origin-sequence")`) or a
    ///   damaged `expiry` (`corruptKey`) gets here.
    private func index(_ id: EventID, at position: UInt64, in txn: borrowing WriteTransaction) throws {
        do {
            try txn.put(PackedKey(position: position), forKey: PackedKey(event: id), in: schema.eventIndex, flags: .noOverwrite)
        } catch LMDBError.keyExists {
            guard id.isTTLEnd else { throw ShareLogError.corruptMeta("origin-sequence") }
            throw ShareLogError.corruptKey(
                database: "eventIndex", key: Key.event(id), reason: "the TTL end of a share that expiry still lists as pending")
        }
    }

    /// A share reads one of three ways, and a new winning creation moves it
    /// between them: pending (in `expiry`, counted live), arrived redacted
    /// (counted expired; no end logged, so a creation holding a card may
    /// make it pending again), or ended (an end is logged: counted expired
    /// for good).
    /// Forgets the state of `name`, a share that ended (a trim removes its
    /// log entries in the same transaction).
    mutating func forgetEnded(_ name: RecordName, in txn: borrowing WriteTransaction) throws {
        guard try txn.delete(PackedKey(name: name), in: schema.shares) else { return }
        expiredDelta -= 1
    }

    private mutating func applyCreation(_ created: ShareCreated, id: EventID, at position: UInt64, in txn: borrowing WriteTransaction) throws {
        let name = created.recordName
        let holdsCard = created.vCard != nil
        let creation = ShareState.Creation(createdAt: created.createdAt, expiresAt: created.expiresAt, event: id, position: position)
        guard var state = try state(of: name, in: txn) else {
            var state = ShareState(creation: creation)
            if holdsCard {
                try txn.put(PackedKey(pendingValue: creation), forKey: PackedKey(expiresAt: creation.expiresAt, name: name), in: schema.expiry)
                liveDelta += 1
            } else {
                state.arrivedRedacted = true
                expiredDelta += 1
            }
            try store(state, for: name, in: txn)
            return
        }
        if let current = state.creation, current.event < id {
            // A losing rival: its card is never shown.
            if holdsCard { try queueRedaction(at: position, in: txn) }
            return
        }
        let pendingKey = state.creation.map { PackedKey(expiresAt: $0.expiresAt, name: name) }
        let wasPending = try pendingKey.map { try txn.contains($0, in: schema.expiry) } ?? false
        // A tombstone, or a creation neither pending nor arrived redacted, has an end logged.
        let noEndLogged = wasPending || state.arrivedRedacted
        if let current = state.creation, try self.holdsCard(at: current.position, of: name, in: txn) {
            // The displaced winner's card is no longer any answer's.
            try queueRedaction(at: current.position, in: txn)
        }
        if wasPending, let pendingKey { try txn.delete(pendingKey, in: schema.expiry) }
        if noEndLogged && holdsCard {
            try txn.put(PackedKey(pendingValue: creation), forKey: PackedKey(expiresAt: creation.expiresAt, name: name), in: schema.expiry)
            if !wasPending {
                liveDelta += 1
                expiredDelta -= 1
            }
        } else if noEndLogged {
            if wasPending {
                liveDelta -= 1
                expiredDelta += 1
            }
        } else if holdsCard {
            // The share has already ended: the new winner's card is owed to no one.
            try queueRedaction(at: position, in: txn)
        }
        state.creation = creation
        state.ttlEnd = nil
        state.arrivedRedacted = noEndLogged && !holdsCard
        try store(state, for: name, in: txn)
    }

    private mutating func applyExpiry(_ expired: ShareExpired, id: EventID, in txn: borrowing WriteTransaction) throws {
        let name = expired.recordName
        let end = ShareState.End(at: expired.at, event: id)
        guard var state = try state(of: name, in: txn) else {
            let tombstone = expired.reason == .revoked ? ShareState(revocation: end) : ShareState(ttlEnd: end)
            try store(tombstone, for: name, in: txn)
            expiredDelta += 1
            return
        }
        // Any end settles a creation that arrived redacted (it stays counted expired).
        var changed = state.arrivedRedacted
        state.arrivedRedacted = false
        switch expired.reason {
        case .revoked where state.revocation.map(end.precedes) ?? true:
            state.revocation = end
            changed = true
        case .ttl where state.creation == nil && (state.ttlEnd.map(end.precedes) ?? true):
            state.ttlEnd = end
            changed = true
        case .revoked, .ttl:
            break
        }
        if changed { try store(state, for: name, in: txn) }
        guard let creation = state.creation else { return }
        let pending = PendingShare(name: name, creationPosition: creation.position, expiresAt: creation.expiresAt)
        if try txn.contains(pending.key, in: schema.expiry) {
            try endPending(pending, holdingCard: holdsCard(at: creation.position, of: name, in: txn), in: txn)
        }
    }

    /// Ends a pending share: out of `expiry`, its card (if its creation's
    /// entry still holds it) queued for redaction, counted expired instead
    /// of live.
    private mutating func endPending(_ pending: PendingShare, holdingCard: Bool, in txn: borrowing WriteTransaction) throws {
        try txn.delete(pending.key, in: schema.expiry)
        try retire(pending, holdingCard: holdingCard, in: txn)
    }

    /// What ending a pending share does besides removing its `expiry`
    /// entry: its card queued for redaction, if its creation's entry still
    /// holds it, and the share counted expired instead of live.
    private mutating func retire(_ pending: PendingShare, holdingCard: Bool, in txn: borrowing WriteTransaction) throws {
        if holdingCard { try queueRedaction(at: pending.creationPosition, in: txn) }
        liveDelta -= 1
        expiredDelta += 1
    }

    private func queueRedaction(at position: UInt64, in txn: borrowing WriteTransaction) throws {
        try txn.put([UInt8](), forKey: PackedKey(position: position), in: schema.pendingRedactions)
    }

    /// Whether the `shareCreated` of `name` logged at `position` still
    /// holds its card.
    ///
    /// - Throws: `ShareLogError.corruptEvent` when the entry is missing or
    ///   is not a creation of `name`: a state names only its own creation.
    private func holdsCard(at position: UInt64, of name: RecordName, in txn: borrowing WriteTransaction) throws -> Bool {
        guard let holds = try creationHoldsCard(at: position, of: name, in: txn) else {
            throw ShareLogError.corruptEvent(position: position, reason: .notTheCreation(of: name))
        }
        return holds
    }

    /// Whether the entry at `position` is a `shareCreated` of `name` that
    /// still holds its card; nil when it is not a creation of `name`.
    private func creationHoldsCard(at position: UInt64, of name: RecordName, in txn: borrowing WriteTransaction) throws -> Bool? {
        try txn.withValue(forKey: PackedKey(position: position), in: schema.log) { EventCodec.creationHoldsCard($0, of: name) } ?? nil
    }

    /// The end share `name`, in `state`, has reached at `now`, or nil when
    /// it is live provided its creation's log entry still holds the card.
    ///
    /// Beyond what the state says (`ShareState.end(at:)`), a share that is
    /// no longer pending has had an end logged, a sweep's or a peer's: it
    /// stays ended even if the clock goes back. That costs one `expiry`
    /// lookup, made only for a share the state alone would call live.
    func end(of name: RecordName, _ state: ShareState, at now: Timestamp, in txn: borrowing Transaction<some TransactionAccess>) throws
        -> (at: Timestamp, reason: ExpiryReason)?
    {
        if let end = state.end(at: now) { return end }
        guard let creation = state.creation else { return nil }
        if try txn.contains(PackedKey(expiresAt: creation.expiresAt, name: name), in: schema.expiry) { return nil }
        return (creation.expiresAt, .ttl)
    }

    /// The stored state of `name`.
    func state(of name: RecordName, in txn: borrowing Transaction<some TransactionAccess>) throws -> ShareState? {
        let decoded = try txn.withValue(forKey: PackedKey(name: name), in: schema.shares) { bytes in ShareState(bytes) }
        guard let decoded else { return nil }
        guard let state = decoded else { throw ShareLogError.corruptShare(name) }
        return state
    }

    private func store(_ state: ShareState, for name: RecordName, in txn: borrowing WriteTransaction) throws {
        try txn.put(reservingCount: state.encodedSize, forKey: PackedKey(name: name), in: schema.shares) { state.encode(into: $0) }
    }

    private func adjustCounter(_ key: [UInt8], by delta: Int64, in txn: borrowing WriteTransaction) throws {
        let current = try Self.counter(key, schema: schema, in: txn)
        // Clamped: a damaged counter is verify's to report, never a trap.
        let adjusted = UInt64(clamping: Int64(clamping: current).addingReportingOverflow(delta).partialValue)
        try txn.put(Key.bigEndian(adjusted), forKey: key, in: schema.meta)
    }

    /// A meta counter; 0 when absent.
    static func counter(_ key: [UInt8], schema: Schema, in txn: borrowing Transaction<some TransactionAccess>) throws -> UInt64 {
        let stored = try txn.withValue(forKey: key, in: schema.meta) { Key.integer($0, as: UInt64.self) }
        guard let stored else { return 0 }
        guard let value = stored else { throw ShareLogError.corruptMeta(String(decoding: key, as: UTF8.self)) }
        return value
    }
}
