import LMDB

/// The `idempotency` database (docs/FORMAT.md "Idempotency keys"): what
/// the gateway's uploads remember of each `Idempotency-Key`, per token.
/// An upload writes its entry in the transaction that makes its share
/// (`create(vCard:ttl:claim:)`); these read and expire them.
extension ShareStore {
    /// How long an upload's key is kept at least: the idempotency-key
    /// draft's 24 hours. A trimming maintenance pass (daily, by default)
    /// forgets older ones, so a key lives 24 to 48 hours.
    public static let idempotencyRetention = Duration.seconds(24 * 3600)

    /// The entry for the key whose SHA-256 is `keyHash` under `token`, or
    /// nil. O(log entries).
    ///
    /// - Throws: `corruptKey` for an entry that does not decode.
    public func idempotencyEntry(token: TokenID, keyHash: [UInt8]) throws(ShareLogError) -> IdempotencyEntry? {
        let key = IdempotencyEntry.key(token: token, keyHash: keyHash)
        return try read { txn in
            try txn.withValue(forKey: key, in: schema.idempotency) { value in
                try key.withUnsafeBytes { key in try IdempotencyEntry.decode(key: key, value: value) }
            }
        }
    }

    /// Every entry, in key order (by token, then key hash). O(entries), one
    /// read transaction.
    public func idempotencyEntries() throws(ShareLogError) -> [IdempotencyEntry] {
        try read { txn in
            var entries: [IdempotencyEntry] = []
            try txn.scan(schema.idempotency) { entry in
                entries.append(try IdempotencyEntry.decode(key: entry.key, value: entry.value))
                return .proceed
            }
            return entries
        }
    }

    /// Removes every entry first seen before `time`, in one transaction.
    /// Entries are keyed by token and key, not by time, so this reads them
    /// all: O(entries), which a daily pass with a 24-hour horizon keeps to
    /// about a day's uploads.
    ///
    /// - Returns: how many were removed.
    /// - Throws: `corruptKey` for an entry that does not decode; nothing
    ///   is removed then.
    @discardableResult
    public func removeIdempotencyEntries(firstSeenBefore time: Timestamp) throws(ShareLogError) -> Int {
        let database = schema.idempotency
        return try write { txn in
            var old: [[UInt8]] = []
            try txn.scan(database) { entry in
                if try IdempotencyEntry.decode(key: entry.key, value: entry.value).firstSeen < time { old.append(Array(entry.key)) }
                return .proceed
            }
            for key in old { _ = try txn.delete(key, in: database) }
            return old.count
        }
    }
}
