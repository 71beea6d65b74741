import LMDB

/// The log as a peer may read it: a card leaves this replica only while
/// its share is live here, and a peer never sees an ended share without
/// the reason it ended (docs/SYNC.md "What a peer reads").
extension ShareStore {
    /// The next run of this replica's log for a peer whose cursor is at
    /// `position` of epoch `epoch`, about `maxBytes` of encoded events (at
    /// least one event, if any follow) and at most `limit` log entries.
    ///
    /// - Parameters:
    ///   - epoch: the epoch the peer's cursor belongs to; nil when the peer
    ///     has no cursor yet, and then `position` must be 0.
    ///   - excluded: the peer's own replica id: its events are skipped (it
    ///     holds them), though `through` moves past them.
    /// Before it returns, the high-water file covers the batch's
    /// `lastPosition` (`raiseHighWater(through:)`).
    ///
    /// - Throws: `snapshotRequired` when `epoch` is not this store's, when
    ///   `position` is past the end of the log, or when a trim removed
    ///   entries after `position`: the peer must start again from a
    ///   snapshot, never read on across a gap.
    public func replicationBatch(
        after position: UInt64, inEpoch epoch: Epoch?, maxBytes: Int = 1 << 20, limit: Int = 10_000,
        excludingOrigin excluded: ReplicaID? = nil
    ) throws(ShareLogError) -> ReplicationBatch {
        precondition(epoch != nil || position == 0, "a peer without a cursor reads from the start")
        precondition(maxBytes > 0 && limit > 0, "a batch holds at least one event")
        let batch = try read { txn in
            let current = try storedEpoch(in: txn)
            let last = try log.lastPosition(in: txn)
            if let epoch, epoch != current {
                throw ShareLogError.snapshotRequired(.epochUnknown(cursor: epoch, current: current))
            }
            guard position <= last else { throw ShareLogError.snapshotRequired(.cursorAhead(position: position, lastPosition: last)) }
            let trimmed = try ShareProjection.counter(MetaKey.trimmedThrough, schema: schema, in: txn)
            guard position >= trimmed else { throw ShareLogError.snapshotRequired(.behindHorizon(position: position, horizon: trimmed)) }
            return try run(after: position, maxBytes: maxBytes, limit: limit, excluding: excluded, epoch: current, last: last, in: txn)
        }
        try raiseHighWater(to: batch.lastPosition, of: batch.epoch)
        return batch
    }

    /// The next part of a snapshot for a peer: the log after `position`
    /// as it is now, gaps and all, read the way `replicationBatch` reads it
    /// but without checking a cursor. After a trim the log holds exactly the
    /// live shares and the ended ones inside the retention horizon, so the
    /// log up to its end when a snapshot begins is that snapshot; entries
    /// are never moved, so later reads see the same prefix.
    public func snapshotBatch(
        after position: UInt64, maxBytes: Int = 1 << 20, limit: Int = 10_000, excludingOrigin excluded: ReplicaID? = nil
    ) throws(ShareLogError) -> ReplicationBatch {
        precondition(maxBytes > 0 && limit > 0, "a batch holds at least one event")
        let batch = try read { txn in
            try run(
                after: position, maxBytes: maxBytes, limit: limit, excluding: excluded, epoch: storedEpoch(in: txn),
                last: log.lastPosition(in: txn), in: txn)
        }
        try raiseHighWater(to: batch.lastPosition, of: batch.epoch)
        return batch
    }

    /// The log after `position`, as a peer may read it.
    private func run(
        after position: UInt64, maxBytes: Int, limit: Int, excluding excluded: ReplicaID?, epoch: Epoch, last: UInt64,
        in txn: borrowing ReadTransaction
    ) throws -> ReplicationBatch {
        var events: [Event] = []
        var withheld: [RecordName] = []
        var through = position
        var bytes = 0
        for entry in try log.entries(after: position, limit: limit, maxBytes: maxBytes, in: txn) {
            through = entry.position
            guard entry.event.id.origin != excluded else { continue }
            var event = entry.event
            if case .shareCreated(let created) = event.kind {
                if created.vCard != nil, try txn.contains(Key.sequence(entry.position), in: schema.pendingRedactions) {
                    event = Event(id: event.id, kind: .shareCreated(created.redacted))
                }
                if case .shareCreated(let sent) = event.kind, sent.vCard == nil { withheld.append(created.recordName) }
            }
            bytes += entry.size
            events.append(event)
        }
        // At the log's end, `through` covers a trimmed tail too (the log's
        // last position may be a removed one), so the peer reaches `last`.
        if try !log.hasEntry(after: through, in: txn) { through = max(through, last) }
        let sent = Set(events.map(\.id))
        for name in withheld {
            guard let revocation = try projection.state(of: name, in: txn)?.revocation?.event,
                  revocation.origin != excluded, !sent.contains(revocation),
                  let event = try loggedEvent(revocation, in: txn)
            else { continue }
            events.append(event)
        }
        return ReplicationBatch(events: events, through: through, lastPosition: last, bytes: bytes, epoch: epoch)
    }

    /// Every event of share `name` that decides how it reads: its winning
    /// creation, its revocation, and its TTL end (the tombstone's, or the
    /// one `EventID.ttlEnd(of:)` names), in log order. Empty for a name
    /// this store has never heard of. This is what a clip receives, so the
    /// creation comes without its card once the share has ended at `time`
    /// (default: now) by this replica's clock.
    ///
    /// Cost: the share's state and at most three index lookups and four
    /// log reads, O(log n) each; never a scan. Before it returns, the
    /// high-water file covers the position of each event of this replica's
    /// own origin it returns (`raiseHighWater(through:)`).
    public func events(of name: RecordName, at time: Timestamp? = nil) throws(ShareLogError) -> [Event] {
        let now = time ?? clock.now()
        let (events, reach) = try read { txn -> ([Event], HighWaterMark?) in
            guard let state = try projection.state(of: name, in: txn) else { return ([], nil) }
            var found: [(position: UInt64, event: Event)] = []
            if let creation = state.creation, let event = try log.event(at: creation.position, in: txn) {
                guard case .shareCreated(let created) = event.kind else {
                    throw ShareLogError.corruptEvent(position: creation.position, reason: .notTheCreation(of: name))
                }
                let ended = try projection.end(of: name, state, at: now, in: txn) != nil
                found.append((creation.position, ended ? Event(id: event.id, kind: .shareCreated(created.redacted)) : event))
            }
            let ends = [state.revocation?.event, state.ttlEnd?.event, state.creation != nil ? .ttlEnd(of: name) : nil]
            for id in Set(ends.compactMap { $0 }) {
                guard let position = try position(of: id, in: txn), let event = try log.event(at: position, in: txn) else { continue }
                found.append((position, event))
            }
            // The highest position of an event of this replica's own that
            // goes out: its id must never be made again for another event.
            let own = try storedReplica(in: txn)
            let reach = try found.filter { $0.event.id.origin == own }.map(\.position).max().map {
                HighWaterMark(epoch: try storedEpoch(in: txn), position: $0)
            }
            return (found.sorted { $0.position < $1.position }.map(\.event), reach)
        }
        if let reach { try raiseHighWater(to: reach.position, of: reach.epoch) }
        return events
    }

    /// The logged event `id`, or nil when the log does not hold it.
    private func loggedEvent(_ id: EventID, in txn: borrowing ReadTransaction) throws -> Event? {
        guard let position = try position(of: id, in: txn) else { return nil }
        return try log.event(at: position, in: txn)
    }

    /// Where the log holds event `id`, from `eventIndex`.
    private func position(of id: EventID, in txn: borrowing ReadTransaction) throws -> UInt64? {
        let stored = try txn.withValue(forKey: PackedKey(event: id), in: schema.eventIndex) { Key.integer($0, as: UInt64.self) }
        guard let stored else { return nil }
        guard let position = stored else {
            throw ShareLogError.corruptKey(database: "eventIndex", key: Key.event(id), reason: "not an 8-byte log position")
        }
        return position
    }
}
