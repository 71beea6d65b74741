import LMDB

/// Turns a format-1 store into a format-2 one, in place, in one durable
/// write transaction (docs/FORMAT.md "Format 1, and the upgrade").
///
/// The log is the truth and stays as it is, byte for byte. Everything
/// derived from it is rebuilt by replaying it through the format-2 rules:
/// `eventIndex`, `shares`, `expiry`, `pendingRedactions` and the counters
/// are emptied and refilled, format 1's `recordCreates` is deleted, and
/// `schema` becomes 2 last. LMDB commits the transaction whole or not at
/// all, so a crash at any moment leaves format 1 or format 2, never a mix;
/// the next open upgrades again. Cost: O(log) time, and the transaction
/// dirties every page of the derived databases.
struct StoreUpgrade {
    let schema: Schema

    /// The format a store must have for `run` to upgrade it.
    static let fromVersion: UInt32 = 1
    /// The format-1 database that format 2 no longer has.
    static let retiredDatabase = "recordCreates"
    /// Log entries read per step of the replay.
    static let chunkSize = 1000

    /// Upgrades the store in `txn` if it is still format 1 (another
    /// process may have upgraded it first).
    ///
    /// - Returns: the log entries replayed, or nil when there was nothing
    ///   to upgrade.
    /// - Throws: `ShareLogError.corruptEvent` for a log entry that does not
    ///   decode; the store then stays format 1, untouched.
    func run(in txn: borrowing WriteTransaction) throws -> Int? {
        let version = try txn.withValue(forKey: MetaKey.schema, in: schema.meta) { Key.integer($0, as: UInt32.self) }
        guard version == Self.fromVersion else { return nil }
        for database in schema.derived { try txn.removeAll(in: database) }
        try txn.deleteDatabase(named: Self.retiredDatabase)
        try txn.delete(MetaKey.liveCount, in: schema.meta)
        try txn.delete(MetaKey.expiredCount, in: schema.meta)
        let log = EventLog(schema: schema)
        var projection = ShareProjection(schema: schema)
        var position: UInt64 = 0
        var replayed = 0
        while true {
            let entries = try log.entries(after: position, limit: Self.chunkSize, maxBytes: .max, in: txn)
            guard let last = entries.last else { break }
            for entry in entries { try projection.apply(entry.event, at: entry.position, in: txn) }
            replayed += entries.count
            position = last.position
        }
        try projection.finish(in: txn)
        try txn.put(Key.bigEndian(Schema.version), forKey: MetaKey.schema, in: schema.meta)
        return replayed
    }
}
