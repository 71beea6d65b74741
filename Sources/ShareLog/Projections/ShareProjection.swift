import LMDB

/// Folds events into the derived databases: `eventIndex`, `shares`,
/// `expiry`, `recordCreates`, `pendingRedactions` and the meta counters.
///
/// The rules make the result independent of the order events arrive in,
/// so replicas that saw the same events hold identical projections:
/// - expired is terminal: a `shareExpired` tombstones its share whether or
///   not the creation has been seen, and nothing revives it;
/// - of two creations for one record name, the smaller event id wins;
/// - of two expirations, the earlier time wins, then the smaller event id;
/// - a vCard is kept only while its share is live.
///
/// Every method runs inside the caller's write transaction.
struct ShareProjection {
    let schema: Schema

    /// Records `event`, stored at local `sequence`, in every derived database.
    func apply(_ event: Event, at sequence: UInt64, in txn: borrowing WriteTransaction) throws {
        try txn.put(Key.sequence(sequence), forKey: Key.event(event.id), in: schema.eventIndex)
        switch event.kind {
        case .shareCreated(let created):
            try applyCreation(created, id: event.id, at: sequence, in: txn)
        case .shareExpired(let expired):
            try applyExpiry(expired, id: event.id, in: txn)
        case .unknown:
            break
        }
    }

    private func applyCreation(_ created: ShareCreated, id: EventID, at sequence: UInt64, in txn: borrowing WriteTransaction) throws {
        let name = created.recordName
        try txn.put([created.vCard == nil ? 0 : 1], forKey: Key.recordCreate(name, sequence), in: schema.recordCreates)
        let creation = ShareState.Creation(createdAt: created.createdAt, expiresAt: created.expiresAt, event: id)
        guard var state = try state(of: name, in: txn) else {
            try store(ShareState(creation: creation, vCard: created.vCard), for: name, in: txn)
            try txn.put([UInt8](), forKey: Key.expiry(created.expiresAt, name), in: schema.expiry)
            try adjustCounter(MetaKey.liveCount, by: 1, in: txn)
            return
        }
        if state.expiry != nil {
            // A creation behind its tombstone: keep the facts, never the card.
            if created.vCard != nil {
                try txn.put([UInt8](), forKey: Key.sequence(sequence), in: schema.pendingRedactions)
            }
            if state.creation.map({ id < $0.event }) ?? true {
                state.creation = creation
                try store(state, for: name, in: txn)
            }
        } else if let current = state.creation, id < current.event {
            try txn.delete(Key.expiry(current.expiresAt, name), in: schema.expiry)
            try txn.put([UInt8](), forKey: Key.expiry(created.expiresAt, name), in: schema.expiry)
            try store(ShareState(creation: creation, vCard: created.vCard), for: name, in: txn)
        }
    }

    private func applyExpiry(_ expired: ShareExpired, id: EventID, in txn: borrowing WriteTransaction) throws {
        let name = expired.recordName
        let expiry = ShareState.Expiry(at: expired.at, reason: expired.reason, event: id)
        guard var state = try state(of: name, includingVCard: false, in: txn) else {
            try store(ShareState(expiry: expiry), for: name, in: txn)
            try adjustCounter(MetaKey.expiredCount, by: 1, in: txn)
            return
        }
        if let current = state.expiry {
            guard expiry.precedes(current) else { return }
            state.expiry = expiry
            try store(state, for: name, in: txn)
            return
        }
        // Live until now: the card leaves the projection in this transaction,
        // and every logged creation of the share is queued for redaction.
        if let creation = state.creation {
            try txn.delete(Key.expiry(creation.expiresAt, name), in: schema.expiry)
        }
        state.expiry = expiry
        state.vCard = nil
        try store(state, for: name, in: txn)
        try adjustCounter(MetaKey.liveCount, by: -1, in: txn)
        try adjustCounter(MetaKey.expiredCount, by: 1, in: txn)
        try queueRedactions(of: name, in: txn)
    }

    /// Queues every logged creation of `name` that still holds its card.
    ///
    /// - Throws: `ShareLogError.corruptKey` for a damaged key among them.
    private func queueRedactions(of name: RecordName, in txn: borrowing WriteTransaction) throws {
        var sequences: [UInt64] = []
        let range = KeyRange.from(Key.recordCreate(name, 0), through: Key.recordCreate(name, .max))
        try txn.scan(schema.recordCreates, in: range) { entry in
            // Skipping a damaged key would leave its card in the log for good.
            guard let sequence = Key.integer(UnsafeRawBufferPointer(rebasing: entry.key[16...]), as: UInt64.self) else {
                throw ShareLogError.corruptKey(
                    database: "recordCreates", key: Array(entry.key), reason: "not a record name (16 bytes) and a log position (8 bytes)")
            }
            if entry.value.first == 1 { sequences.append(sequence) }
            return .proceed
        }
        for sequence in sequences {
            try txn.put([UInt8](), forKey: Key.sequence(sequence), in: schema.pendingRedactions)
        }
    }

    /// The stored state of `name`.
    func state(of name: RecordName, includingVCard: Bool = true, in txn: borrowing Transaction<some TransactionAccess>) throws -> ShareState? {
        let decoded = try txn.withValue(forKey: name.bytes, in: schema.shares) { bytes in
            ShareState(bytes, includingVCard: includingVCard)
        }
        guard let decoded else { return nil }
        guard let state = decoded else { throw ShareLogError.corruptShare(name) }
        return state
    }

    /// - Precondition: a live `state` carries its vCard (loaded with it).
    private func store(_ state: ShareState, for name: RecordName, in txn: borrowing WriteTransaction) throws {
        try txn.put(state.encoded(), forKey: name.bytes, in: schema.shares)
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
