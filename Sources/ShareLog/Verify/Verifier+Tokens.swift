import LMDB

/// The primary databases of the gateway's write API, which the log does
/// not imply: `verify` does not rebuild them, but checks that every entry
/// is well-formed (docs/FORMAT.md "What a reader must refuse") and that no
/// two tokens share a name. O(tokens + idempotency entries).
extension Verifier {
    mutating func checkTokens(in txn: borrowing ReadTransaction) throws {
        var names: Set<String> = []
        try txn.scan(schema.tokens) { entry in
            countCompared()
            do throws(ShareLogError) {
                let token = try StoredToken.decode(key: entry.key, value: entry.value)
                if !names.insert(token.name).inserted {
                    record(Mismatch(database: "tokens", key: Key.hex(entry.key), problem: "a second token named '\(token.name)'"))
                }
            } catch {
                record(Self.mismatch(error, key: entry.key))
            }
            return .proceed
        }
    }

    mutating func checkIdempotencyEntries(in txn: borrowing ReadTransaction) throws {
        try txn.scan(schema.idempotency) { entry in
            countCompared()
            do throws(ShareLogError) { _ = try IdempotencyEntry.decode(key: entry.key, value: entry.value) } catch {
                record(Self.mismatch(error, key: entry.key))
            }
            return .proceed
        }
    }

    /// The report entry for an entry a decoder refused (`corruptKey`).
    private static func mismatch(_ error: ShareLogError, key: UnsafeRawBufferPointer) -> Mismatch {
        guard case .corruptKey(let database, _, let reason) = error else {
            preconditionFailure("the token and idempotency decoders throw only corruptKey, not \(error)")
        }
        return Mismatch(database: database, key: Key.hex(key), problem: reason)
    }
}
