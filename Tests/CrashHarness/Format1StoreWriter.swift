import Foundation
import LMDB
import ShareLog

/// Writes a `Format1Store` as store format 1, byte for byte as the last
/// format-1 build laid it out (`git show 0ca3f2e:docs/FORMAT.md`, and its
/// `ShareState` and `ShareProjection`), through the LMDB wrapper alone: no
/// ShareLog code encodes anything here, so the upgrade is tested against
/// bytes the engine under test did not make.
///
/// What format 1 holds for the plan's history (all integers big-endian):
/// - `meta`: `schema` u32 1, `replica`, `epoch`, `origin-sequence` (the
///   last position: every event is this replica's), `live-count` (shares
///   with no end, due ones included) and `expired-count` (ended shares);
/// - `log`: every event; a compacted share's `shareCreated` with flag bit 0
///   and no card; `eventIndex`: (replica ‖ counter) → position;
/// - `shares`: version 1, flags (bit 0 creation, bit 1 expiry, bit 2 card),
///   createdAt, expiresAt, creating event id, expired at, reason, expiring
///   event id (75 bytes, absent parts zero), then the card while the share
///   has no end;
/// - `expiry`: (expiresAt ‖ name) → empty, for shares with no end;
/// - `recordCreates`: (name ‖ creation position) → 1, or 0 once compacted;
/// - `pendingRedactions`: creation position → empty, for ended shares not
///   compacted.
public enum Format1StoreWriter {
    /// Format 1's databases: no `cursors`, and `recordCreates`.
    public static let databases = ["meta", "log", "eventIndex", "shares", "expiry", "recordCreates", "pendingRedactions"]

    /// Makes the store in the empty directory `path`, in one durable write
    /// transaction, and closes it before returning, so this process may
    /// open the directory again with another list of databases.
    ///
    /// - Throws: `LMDBError` when the environment cannot be made or written.
    public static func write(_ store: Format1Store, to path: String) throws {
        let environment = try Environment.open(at: path, databases: databases)
        let handles = try databases.map { try environment.database($0) }
        try environment.write { txn in try fill(txn, with: store, databases: handles) }
    }

    /// Puts every entry of `store` in `txn`; `databases` are the handles of
    /// `Self.databases`, in that order.
    private static func fill(_ txn: borrowing WriteTransaction, with store: Format1Store, databases: [Database]) throws {
        let (meta, log, eventIndex, shares, expiry, recordCreates, pendingRedactions) =
            (databases[0], databases[1], databases[2], databases[3], databases[4], databases[5], databases[6])
        let replica = bytes(of: store.replica.uuid)
        for (offset, entry) in store.log.enumerated() {
            let position = UInt64(offset + 1)
            try txn.put(bigEndian(position), forKey: replica + bigEndian(position), in: eventIndex)
            let event = switch entry {
            case .created(let index): created(store.shares[index], replica: replica, counter: position)
            case .ended(let index): ended(store.shares[index], replica: replica, counter: position)
            }
            try txn.put(event, forKey: bigEndian(position), in: log)
        }
        for share in store.shares {
            let name = bytes(of: share.name.uuid)
            try txn.put(state(of: share, replica: replica), forKey: name, in: shares)
            try txn.put([share.compacted ? 0 : 1] as [UInt8], forKey: name + bigEndian(share.creationPosition), in: recordCreates)
            if !share.ended {
                try txn.put([UInt8](), forKey: bigEndian(UInt64(share.expiresAt)) + name, in: expiry)
            } else if !share.compacted {
                try txn.put([UInt8](), forKey: bigEndian(share.creationPosition), in: pendingRedactions)
            }
        }
        let ended = UInt64(store.shares.filter(\.ended).count)
        let counters: [(String, [UInt8])] = [
            ("schema", bigEndian(UInt32(1))),
            ("replica", replica),
            ("epoch", bytes(of: store.epoch.uuid)),
            ("origin-sequence", bigEndian(UInt64(store.log.count))),
            ("live-count", bigEndian(UInt64(store.shares.count) - ended)),
            ("expired-count", bigEndian(ended)),
        ]
        for (key, value) in counters { try txn.put(value, forKey: Array(key.utf8), in: meta) }
    }

    /// A `shareCreated` event: redacted (flag bit 0, no card) when compacted.
    static func created(_ share: Format1Share, replica: [UInt8], counter: UInt64) -> [UInt8] {
        let payload = bytes(of: share.name.uuid) + bigEndian(share.createdAt) + bigEndian(share.expiresAt)
            + (share.compacted ? [] : share.card)
        return event(kind: 1, flags: share.compacted ? 1 : 0, replica: replica, counter: counter, payload: payload)
    }

    /// The `shareExpired` that ends a swept (ttl, at `expiresAt`) or revoked share.
    static func ended(_ share: Format1Share, replica: [UInt8], counter: UInt64) -> [UInt8] {
        let (at, reason): (Int64, UInt8) = share.revokedAt.map { ($0, 2) } ?? (share.expiresAt, 1)
        return event(kind: 2, flags: 0, replica: replica, counter: counter, payload: bytes(of: share.name.uuid) + bigEndian(at) + [reason])
    }

    /// Version 1, kind, flags, origin, counter, payload length, payload, CRC-32 of all before it.
    static func event(kind: UInt8, flags: UInt8, replica: [UInt8], counter: UInt64, payload: [UInt8]) -> [UInt8] {
        let body = [1, kind, flags] + replica + bigEndian(counter) + bigEndian(UInt32(payload.count)) + payload
        return body + bigEndian(CRC32.checksum(body))
    }

    /// A format-1 share state: 75 bytes of fixed fields, then the card while the share has no end.
    static func state(of share: Format1Share, replica: [UInt8]) -> [UInt8] {
        let live = !share.ended
        var bytes: [UInt8] = [1, 1 | (live ? 4 : 2)]
        bytes += bigEndian(share.createdAt) + bigEndian(share.expiresAt) + replica + bigEndian(share.creationPosition)
        if let end = share.endPosition {
            let (at, reason): (Int64, UInt8) = share.revokedAt.map { ($0, 2) } ?? (share.expiresAt, 1)
            bytes += bigEndian(at) + [reason] + replica + bigEndian(end)
        } else {
            bytes += [UInt8](repeating: 0, count: 33)
        }
        return live ? bytes + share.card : bytes
    }

    static func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }

    /// A UUID's 16 bytes, in the order of its text form.
    static func bytes(of uuid: UUID) -> [UInt8] {
        withUnsafeBytes(of: uuid.uuid) { Array($0) }
    }
}
