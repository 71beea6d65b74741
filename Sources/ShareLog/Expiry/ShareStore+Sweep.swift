import LMDB

extension ShareStore {
    /// Expires every share due at `time` (default: now): logs a
    /// `shareExpired(ttl)` for each, at its `expiresAt` and with the id
    /// `EventID.ttlEnd(of:)` gives it (the same on every replica, so a
    /// share has one TTL end however many replicas sweep it), and drops its
    /// card from the projection.
    ///
    /// Works in batches of `batchSize` shares, each one short durable write
    /// transaction, so other writers wait at most one batch. Walks the
    /// expiry index from its start and stops at the first share not yet
    /// due, so the cost is O(due), whatever the number of live shares.
    ///
    /// A TTL end leaves `shares` alone (docs/FORMAT.md): each share costs
    /// an append to `log`, `eventIndex` and `pendingRedactions` and a delete
    /// at the front of `expiry`, all on the same few pages, so a batch
    /// dirties no page chosen by a random record name.
    ///
    /// - Throws: `ShareLogError.corruptKey` for a damaged `expiry` entry (key
    ///   or value), with
    ///   that batch unwritten (earlier batches stay committed).
    /// - Parameter progress: called after each committed batch.
    @discardableResult
    @available(*, noasync, message: "use the async sweep from async code")
    public func sweep(
        at time: Timestamp? = nil, batchSize: Int = 1000, progress: ((SweepReport) -> Void)? = nil
    ) throws(ShareLogError) -> SweepReport {
        try sweep(at: time, batchSize: batchSize, progress: progress, cancellation: nil)
    }

    /// `sweep(at:batchSize:progress:)`, checking `cancellation` before
    /// each batch (for the async form).
    func sweep(
        at time: Timestamp?, batchSize: Int, progress: ((SweepReport) -> Void)?, cancellation: CancellationFlag?
    ) throws(ShareLogError) -> SweepReport {
        precondition(batchSize > 0, "a sweep batch holds at least one share")
        let now = time ?? clock.now()
        let dueKeys = Key.due(at: now)
        var report = SweepReport()
        while true {
            try cancellation?.check()
            let batch = try write { txn -> (expired: Int, visited: Int) in
                var local = try LocalLog(schema: self.schema, in: txn)
                var projection = self.projection
                let done = try txn.withCursor(on: self.schema.expiry) { cursor -> (expired: Int, visited: Int) in
                    var done = (expired: 0, visited: 0)
                    var entry = try cursor.seekFirst(in: dueKeys)
                    while done.expired < batchSize, let current = entry, dueKeys.isBelowUpperBound(current.key) {
                        done.visited += 1
                        guard let pending = Key.pendingShare(key: current.key, value: current.value) else {
                            throw ShareLogError.corruptKey(
                                database: "expiry", key: Array(current.key),
                                reason: "not an expiry time (8 bytes, at most Int64.max) and a record name (16 bytes), "
                                    + "with a log position and that same time as its value (16 bytes)")
                        }
                        guard pending.expiresAt <= now else {
                            entry = try cursor.next()
                            continue
                        }
                        let expired = ShareExpired(recordName: pending.name, at: pending.expiresAt, reason: .ttl)
                        let event = Event(id: .ttlEnd(of: pending.name), kind: .shareExpired(expired))
                        let position = try local.append(identified: event, in: txn)
                        try projection.applyTTLEnd(event.id, at: position, of: pending, in: txn)
                        // Deleted at the cursor, like C-LMDB's sweep: no
                        // second descent of the tree to find the entry.
                        try cursor.deleteCurrent()
                        done.expired += 1
                        entry = try cursor.next()
                    }
                    return done
                }
                try projection.finish(in: txn)
                return done
            }
            report.expired += batch.expired
            report.keysVisited += batch.visited
            report.batches += 1
            progress?(report)
            if batch.expired < batchSize { return report }
        }
    }
}
