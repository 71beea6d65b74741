import LMDB

extension ShareStore {
    /// Expires every share due at `time` (default: now): logs a
    /// `shareExpired(ttl)` for each, at its `expiresAt`, and drops its card
    /// from the projection.
    ///
    /// Works in batches of `batchSize` shares, each one short durable write
    /// transaction, so other writers wait at most one batch. Walks the
    /// expiry index from its start and stops at the first share not yet
    /// due, so the cost is O(due), whatever the number of live shares.
    ///
    /// - Throws: `ShareLogError.corruptKey` for a damaged `expiry` entry, with
    ///   that batch unwritten (earlier batches stay committed).
    /// - Parameter progress: called after each committed batch.
    @discardableResult
    @available(*, noasync, message: "use the async sweep from async code")
    public func sweep(
        at time: Timestamp? = nil, batchSize: Int = 1000, progress: ((SweepReport) -> Void)? = nil
    ) throws -> SweepReport {
        precondition(batchSize > 0, "a sweep batch holds at least one share")
        let now = time ?? clock.now()
        let dueKeys = Key.due(at: now)
        var report = SweepReport()
        while true {
            let batch = try write { txn -> (expired: Int, visited: Int) in
                var due: [(key: [UInt8], expiresAt: Timestamp, name: RecordName)] = []
                let visited = try txn.scan(self.schema.expiry, in: dueKeys) { entry in
                    guard let (expiresAt, name) = Key.expiryEntry(entry.key) else {
                        throw ShareLogError.corruptKey(
                            database: "expiry", key: Array(entry.key),
                            reason: "not an expiry time (8 bytes, at most Int64.max) and a record name (16 bytes)")
                    }
                    let at = try self.expiresAt(of: name, indexedAt: expiresAt, in: txn)
                    guard at <= now else { return .proceed }
                    due.append((Array(entry.key), at, name))
                    return due.count < batchSize ? .proceed : .stop
                }
                for (key, at, name) in due {
                    let expired = ShareExpired(recordName: name, at: at, reason: .ttl)
                    _ = try self.appendLocal(.shareExpired(expired), in: txn)
                    // Expiring a live share removes its entry. One that stays
                    // names no live share at that time, and would come back
                    // in every sweep.
                    if try txn.contains(key, in: self.schema.expiry) {
                        throw ShareLogError.corruptKey(
                            database: "expiry", key: key, reason: "no live share \(name) expires at \(at.iso8601)")
                    }
                }
                return (due.count, visited)
            }
            report.expired += batch.expired
            report.keysVisited += batch.visited
            report.batches += 1
            progress?(report)
            if batch.expired < batchSize { return report }
        }
    }

    /// When share `name`, found in the expiry index at `indexed`, expires.
    /// The index holds a time before 1970 as 0, so there the share's own
    /// state says; everywhere else the index does. Costs a lookup only for
    /// those pre-1970 entries.
    func expiresAt(of name: RecordName, indexedAt indexed: Timestamp, in txn: borrowing Transaction<some TransactionAccess>) throws -> Timestamp {
        guard indexed.milliseconds == 0 else { return indexed }
        return try projection.state(of: name, includingVCard: false, in: txn)?.creation?.expiresAt ?? indexed
    }
}
