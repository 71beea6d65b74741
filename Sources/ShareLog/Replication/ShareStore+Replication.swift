import LMDB

/// What sync needs of the engine (docs/SYNC.md): applying a peer's events
/// with its cursor in one transaction, reading the log as a peer may see
/// it, one share's events by record name, and the cursors.
extension ShareStore {
    /// Applies events from another replica, skipping those already logged,
    /// in one durable transaction.
    ///
    /// Every event is checked as a local write would be first (card, size
    /// and time to live: `ForeignEventValidator`), and nothing of the batch
    /// is written if one fails.
    ///
    /// - Throws: `invalidEvent` for an event a local write would refuse;
    ///   `ownOriginConflict` for an event that claims this replica's id with
    ///   a counter beyond what it made (the peer is wrong, or this store was
    ///   restored in place together with its high-water file: only its
    ///   operator can tell, and renews with `renewIdentityAlone()`). An event of its own it made is skipped, whether its
    ///   log still holds it or a trim removed it.
    ///   Nothing is written then.
    /// - Returns: how many were new and how many were already logged.
    @discardableResult
    @available(*, noasync, message: "use the async apply from async code")
    public func apply(_ events: [Event]) throws(ShareLogError) -> ApplyReport {
        try write(foreignApplication(of: events, advancing: nil))
    }

    /// `apply(_:)`, and `cursor` recorded in the same transaction, so the
    /// events and how far they reach commit together or not at all: once
    /// this returns, the batch is durable and the pull may be acknowledged.
    ///
    /// Within one epoch a cursor never moves back: a batch that arrives
    /// late (a second session with the same peer) keeps the larger
    /// position. A new epoch replaces the cursor.
    @discardableResult
    @available(*, noasync, message: "use the async apply from async code")
    public func apply(_ events: [Event], advancing cursor: PeerCursor) throws(ShareLogError) -> ApplyReport {
        try write(foreignApplication(of: events, advancing: cursor))
    }

    /// `apply(_:advancing:)` for the end of a snapshot: `cursor` replaces
    /// the stored one, even when it is behind it in the same epoch.
    ///
    /// A snapshot holds every event of the peer's log up to its end, so
    /// moving back loses nothing: the next pull only reads again what this
    /// store may already hold. Keeping a larger position would skip what
    /// the peer logs at those positions next. That happens after a
    /// `cursorAhead` snapshot: a peer restored in place to an older copy
    /// keeps its epoch, and logs new events at positions the old cursor
    /// had passed (the sync model's counterexample; docs/RELIABILITY.md).
    @discardableResult
    @available(*, noasync, message: "use the async apply from async code")
    public func apply(_ events: [Event], resetting cursor: PeerCursor) throws(ShareLogError) -> ApplyReport {
        try write(foreignApplication(of: events, advancing: cursor, resetting: true))
    }

    /// Checks and encodes `events` (throwing before any write), and returns
    /// the write that applies them, for the blocking and the async forms.
    func foreignApplication(
        of events: [Event], advancing cursor: PeerCursor?, resetting: Bool = false
    ) throws(ShareLogError) -> @Sendable (borrowing WriteTransaction) throws -> ApplyReport {
        let encoded = try events.map { event throws(ShareLogError) in
            let bytes = EventCodec.encode(event)
            try ForeignEventValidator.validate(event, encodedBytes: bytes.count)
            return bytes
        }
        return { txn in
            let own = try self.storedReplica(in: txn)
            var applied = 0
            var projection = self.projection
            for (event, bytes) in zip(events, encoded) {
                if event.id.origin == own {
                    // Ours, held or trimmed: nothing to do. Beyond what we made: a conflict.
                    let made = try ShareProjection.counter(MetaKey.originSequence, schema: self.schema, in: txn)
                    guard event.id.counter <= made else { throw ShareLogError.ownOriginConflict(event.id, madeHere: made) }
                    continue
                }
                guard let position = try self.log.append(event, encoded: bytes, in: txn) else { continue }
                try projection.apply(event, at: position, in: txn)
                applied += 1
            }
            try projection.finish(in: txn)
            if let cursor { try self.advance(cursor, resetting: resetting, in: txn) }
            return ApplyReport(applied: applied, duplicates: events.count - applied)
        }
    }

    /// Stores `cursor`, keeping a larger position of the same epoch unless `resetting`.
    private func advance(_ cursor: PeerCursor, resetting: Bool, in txn: borrowing WriteTransaction) throws {
        var position = cursor.position
        if !resetting, let stored = try storedCursor(of: cursor.peer, in: txn), stored.epoch == cursor.epoch {
            position = max(position, stored.position)
        }
        let advanced = PeerCursor(peer: cursor.peer, epoch: cursor.epoch, position: position, lastSeen: cursor.lastSeen)
        try txn.put(advanced.encoded(), forKey: cursor.peer.bytes, in: schema.cursors)
    }

    /// The highest origin counter of `origin`'s events this store holds
    /// (0 for none): what a server tells a client of the client's own
    /// events, so that a client restored from an older copy learns that
    /// its peers hold events it never made. One index seek.
    public func highestCounter(of origin: ReplicaID) throws(ShareLogError) -> UInt64 {
        let prefix = origin.bytes
        let bound = prefix + Key.bigEndian(UInt64.max)
        return try read { txn in
            try txn.withCursor(on: schema.eventIndex) { cursor -> UInt64 in
                let below: CursorEntry?
                if let found = try cursor.seek(atLeast: bound) {
                    if found.key.elementsEqual(bound) { return .max }
                    below = try cursor.previous()
                } else {
                    below = try cursor.last()
                }
                guard let below, below.key.count == 24, below.key.prefix(16).elementsEqual(prefix) else { return 0 }
                return Key.integer(UnsafeRawBufferPointer(rebasing: below.key[16...]), as: UInt64.self) ?? 0
            }
        }
    }

    /// The origin counter of the last event this replica made (0 for
    /// none): what a peer's `heldOfYou` is compared with, since a trim may
    /// have removed this replica's own oldest events from its log.
    public func originCounter() throws(ShareLogError) -> UInt64 {
        try read { txn in try ShareProjection.counter(MetaKey.originSequence, schema: schema, in: txn) }
    }

    /// The cursor this replica keeps for `peer`, or nil before its first
    /// applied batch.
    public func cursor(of peer: ReplicaID) throws(ShareLogError) -> PeerCursor? {
        try read { txn in try storedCursor(of: peer, in: txn) }
    }

    /// Every peer's cursor, by replica id.
    ///
    /// - Throws: `corruptKey` for a damaged `cursors` entry.
    public func peers() throws(ShareLogError) -> [PeerCursor] {
        try read { txn in
            var cursors: [PeerCursor] = []
            try txn.scan(schema.cursors) { entry in
                guard let cursor = PeerCursor(key: entry.key, value: entry.value) else {
                    throw Self.damagedCursor(key: entry.key)
                }
                cursors.append(cursor)
                return .proceed
            }
            return cursors
        }
    }

    private func storedCursor(of peer: ReplicaID, in txn: borrowing Transaction<some TransactionAccess>) throws -> PeerCursor? {
        let key = peer.bytes
        let decoded = try txn.withValue(forKey: key, in: schema.cursors) { value in
            key.withUnsafeBytes { PeerCursor(key: $0, value: value) }
        }
        guard let decoded else { return nil }
        guard let cursor = decoded else { throw key.withUnsafeBytes { Self.damagedCursor(key: $0) } }
        return cursor
    }

    private static func damagedCursor(key: UnsafeRawBufferPointer) -> ShareLogError {
        .corruptKey(
            database: "cursors", key: Array(key),
            reason: "not a replica id (16 bytes) with an epoch, a position and a time (32 bytes)")
    }

    /// The replica id `meta` holds now, which `renewIdentity()` may have
    /// changed since this instance was opened.
    func storedReplica(in txn: borrowing Transaction<some TransactionAccess>) throws -> ReplicaID {
        let stored = try txn.withValue(forKey: MetaKey.replica, in: schema.meta) { $0.count == 16 ? ReplicaID(bytes: $0) : nil }
        guard let replica = stored ?? nil else { throw ShareLogError.corruptMeta("replica") }
        return replica
    }

    /// The epoch `meta` holds now.
    func storedEpoch(in txn: borrowing Transaction<some TransactionAccess>) throws -> Epoch {
        let stored = try txn.withValue(forKey: MetaKey.epoch, in: schema.meta) { $0.count == 16 ? Epoch(bytes: $0) : nil }
        guard let epoch = stored ?? nil else { throw ShareLogError.corruptMeta("epoch") }
        return epoch
    }
}
