import LMDB

/// The append-only log: events by log position, with an index by event id
/// so that an event is stored once however often it arrives.
///
/// Local sequences start at 1 and have no gaps. Entries are never removed;
/// compaction rewrites a `shareCreated` in place without its vCard, keeping
/// its id and sequence.
struct EventLog {
    let schema: Schema

    /// The log's last position, 0 for a log that never had an entry: the
    /// last entry's, or the highest one a trim removed if that is later
    /// (a trim may remove the newest entries, and a position is never
    /// given twice: a peer's cursor may already be past it). O(log n).
    ///
    /// - Throws: `ShareLogError.corruptKey` when the last key is not an
    ///   8-byte sequence.
    func lastPosition(in txn: borrowing Transaction<some TransactionAccess>) throws -> UInt64 {
        let last = try txn.withCursor(on: schema.log) { cursor in
            guard let last = try cursor.last() else { return UInt64(0) }
            return try Self.sequence(ofKey: last.key)
        }
        return max(last, try ShareProjection.counter(MetaKey.trimmedThrough, schema: schema, in: txn))
    }

    /// Whether the log holds an entry after `position`. One seek.
    func hasEntry(after position: UInt64, in txn: borrowing Transaction<some TransactionAccess>) throws -> Bool {
        guard position < .max else { return false }
        return try txn.withCursor(on: schema.log) { cursor in try cursor.seek(atLeast: Key.sequence(position + 1)) != nil }
    }

    /// The log position a log key holds.
    ///
    /// - Throws: `ShareLogError.corruptKey` for a key of another length.
    static func sequence(ofKey key: UnsafeRawBufferPointer) throws(ShareLogError) -> UInt64 {
        guard let sequence = Key.integer(key, as: UInt64.self) else {
            throw ShareLogError.corruptKey(database: "log", key: Array(key), reason: "not an 8-byte log position")
        }
        return sequence
    }

    /// Appends `encoded` (the encoding of `event`) unless its id is logged.
    ///
    /// - Returns: the new log position, or nil for a duplicate.
    /// - Throws: `ShareLogError.corruptKey` when the last log key is damaged.
    func append(_ event: Event, encoded: [UInt8], in txn: borrowing WriteTransaction) throws -> UInt64? {
        if try txn.contains(Key.event(event.id), in: schema.eventIndex) { return nil }
        let last = try lastPosition(in: txn)
        guard last < .max else {
            throw ShareLogError.corruptKey(
                database: "log", key: Key.sequence(last), reason: "the largest log position; no entry can follow it")
        }
        let sequence = last + 1
        try txn.put(encoded, forKey: Key.sequence(sequence), in: schema.log, flags: .append)
        return sequence
    }

    /// Decodes the entry at `sequence`.
    func event(at sequence: UInt64, in txn: borrowing Transaction<some TransactionAccess>) throws -> Event? {
        let decoded = try txn.withValue(forKey: PackedKey(position: sequence), in: schema.log) { bytes in
            Result { () throws(EventDecodingError) in try EventCodec.decode(bytes) }
        }
        return try decoded.map { result in
            try result.mapError { ShareLogError.corruptEvent(position: sequence, reason: .undecodable($0)) }.get()
        }
    }

    /// The card of the `shareCreated` at `position`; nil once redacted.
    /// The entry is checked whole, and only the card is copied out of it.
    ///
    /// - Throws: `ShareLogError.corruptEvent` when the entry does not
    ///   decode, is missing, or is not a `shareCreated`: a share state
    ///   names only creations.
    func card(at position: UInt64, in txn: borrowing Transaction<some TransactionAccess>) throws -> [UInt8]? {
        let found = try txn.withValue(forKey: PackedKey(position: position), in: schema.log) { bytes -> [UInt8]? in
            let lookup: EventCodec.CardLookup
            do throws(EventDecodingError) { lookup = try EventCodec.card(in: bytes) } catch {
                throw ShareLogError.corruptEvent(position: position, reason: .undecodable(error))
            }
            switch lookup {
            case .card(let card): return Array(card)
            case .redacted: return nil
            case .notACreation: throw ShareLogError.corruptEvent(position: position, reason: .notACreation)
            }
        }
        // No entry at all: the state names a position the log never had.
        guard let found else { throw ShareLogError.corruptEvent(position: position, reason: .notACreation) }
        return found
    }

    /// Entries after `sequence`, in order, up to `limit` entries or about
    /// `maxBytes` of encoded events (at least one entry, if any).
    func entries(
        after sequence: UInt64, limit: Int, maxBytes: Int, in txn: borrowing Transaction<some TransactionAccess>
    ) throws -> [LoggedEvent] {
        var entries: [LoggedEvent] = []
        var bytes = 0
        var failure: ShareLogError?
        try txn.scan(schema.log, in: .from(Key.sequence(sequence &+ 1))) { entry in
            guard entries.count < limit, entries.isEmpty || bytes + entry.value.count <= maxBytes else { return .stop }
            let local = try Self.sequence(ofKey: entry.key)
            do throws(EventDecodingError) {
                entries.append(LoggedEvent(position: local, event: try EventCodec.decode(entry.value), size: entry.value.count))
            } catch {
                failure = .corruptEvent(position: local, reason: .undecodable(error))
                return .stop
            }
            bytes += entry.value.count
            return .proceed
        }
        if let failure { throw failure }
        return entries
    }
}
