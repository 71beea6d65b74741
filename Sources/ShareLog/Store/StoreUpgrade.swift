import LMDB

/// Brings a store of an older format to format 3, in place, in one durable
/// write transaction (docs/FORMAT.md "Format 2, and the upgrade" and
/// "Format 1, and the upgrade").
///
/// From format 1, the log is the truth and stays as it is, byte for byte.
/// Everything derived from it is rebuilt by replaying it through the
/// current rules: `eventIndex`, `shares`, `expiry`, `pendingRedactions` and
/// the counters are emptied and refilled, format 1's `recordCreates` is
/// deleted. From format 2 (and after that replay) the step to format 3
/// adds the primary `tokens` and `idempotency` databases, empty: the open
/// that runs the upgrade made any database it lacked (its first commit,
/// which a format-1 or format-2 build ignores), and this step checks they
/// hold nothing. `schema` becomes 3 last. LMDB commits the transaction
/// whole or not at all, so a crash at any moment leaves the old format or
/// format 3, never a mix; the next open upgrades again. Cost: from format
/// 1, O(log) time, and the transaction dirties every page of the derived
/// databases; from format 2, O(1).
struct StoreUpgrade {
    let schema: Schema

    /// The oldest format `run` upgrades.
    static let oldestVersion: UInt32 = 1
    /// The format-1 database that format 2 no longer has.
    static let retiredDatabase = "recordCreates"
    /// Log entries read per step of the replay.
    static let chunkSize = 1000

    /// Whether a store of format `version` is one `run` upgrades.
    static func upgrades(_ version: UInt32) -> Bool { (oldestVersion..<Schema.version).contains(version) }

    /// Upgrades the store in `txn` if it is still of an older format
    /// (another process may have upgraded it first).
    ///
    /// - Returns: the log entries replayed (0 from format 2), or nil when
    ///   there was nothing to upgrade.
    /// - Throws: `ShareLogError.corruptEvent` for a log entry that does not
    ///   decode, `corruptKey` for an entry in `tokens` or `idempotency`,
    ///   which no older format has; the store then stays as it was.
    func run(in txn: borrowing WriteTransaction) throws -> Int? {
        guard case let version?? = try txn.withValue(forKey: MetaKey.schema, in: schema.meta, { Key.integer($0, as: UInt32.self) }),
              Self.upgrades(version)
        else { return nil }
        let replayed = version == 1 ? try replayFormat1(in: txn) : 0
        for database in [schema.tokens, schema.idempotency] {
            try txn.scan(database) { entry in
                throw ShareLogError.corruptKey(
                    database: database.name, key: Array(entry.key), reason: "a store of format \(version) has no \(database.name)")
            }
        }
        try txn.put(Key.bigEndian(Schema.version), forKey: MetaKey.schema, in: schema.meta)
        return replayed
    }

    /// Rebuilds format 1's derived databases by the current rules.
    private func replayFormat1(in txn: borrowing WriteTransaction) throws -> Int {
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
        return replayed
    }
}
