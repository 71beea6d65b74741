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
    /// - Parameter progress: called after each committed batch.
    @discardableResult
    public func sweep(
        at time: Timestamp? = nil, batchSize: Int = 1000, progress: ((SweepReport) -> Void)? = nil
    ) throws -> SweepReport {
        precondition(batchSize > 0, "a sweep batch holds at least one share")
        let now = time ?? clock.now()
        let due = Key.due(at: now)
        var report = SweepReport()
        while true {
            let batch = try environment.write { txn -> (expired: Int, visited: Int) in
                var names: [(Timestamp, RecordName)] = []
                let visited = try txn.scan(self.schema.expiry, in: due) { entry in
                    let expiresAt = Key.integer(UnsafeRawBufferPointer(rebasing: entry.key[..<8]), as: UInt64.self)!
                    names.append((Timestamp(milliseconds: Int64(expiresAt)), RecordName(bytes: entry.key[8...])))
                    return names.count < batchSize ? .proceed : .stop
                }
                for (expiresAt, name) in names {
                    // The key holds a time before 1970 as 0; the share holds the real one.
                    let at = try self.projection.state(of: name, includingVCard: false, in: txn)?.creation?.expiresAt ?? expiresAt
                    let expired = ShareExpired(recordName: name, at: at, reason: .ttl)
                    _ = try self.appendLocal(.shareExpired(expired), in: txn)
                }
                return (names.count, visited)
            }
            report.expired += batch.expired
            report.keysVisited += batch.visited
            report.batches += 1
            progress?(report)
            if batch.expired < batchSize { return report }
        }
    }
}

/// What a sweep did.
public struct SweepReport: Hashable, Sendable {
    /// Shares turned expired.
    public var expired = 0
    /// Write transactions committed.
    public var batches = 0
    /// Expiry index entries read: the due ones, never the live ones.
    public var keysVisited = 0
}
