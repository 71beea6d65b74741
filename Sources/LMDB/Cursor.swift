internal import CLMDB
import Foundation

/// A position in one database, lent by `Transaction.withCursor` and closed
/// when that closure returns. Corresponds to an `MDB_cursor`.
///
/// Each move returns the entry it lands on, or nil when there is none.
public struct Cursor<Access: TransactionAccess>: ~Copyable {
    let pointer: OpaquePointer
    let database: Database
    private let maxKeySize: Int
    private let failureRecord: UnsafeMutablePointer<Int32>?

    init(pointer: OpaquePointer, database: Database, transaction: borrowing Transaction<Access>) {
        self.pointer = pointer
        self.database = database
        self.maxKeySize = transaction.maxKeySize
        self.failureRecord = transaction.failureRecord
    }

    /// The first entry (`MDB_FIRST`).
    public func first() throws -> CursorEntry? { try move(MDB_FIRST) }
    /// The last entry (`MDB_LAST`).
    public func last() throws -> CursorEntry? { try move(MDB_LAST) }
    /// The entry after the current one (`MDB_NEXT`).
    public func next() throws -> CursorEntry? { try move(MDB_NEXT) }
    /// The entry before the current one (`MDB_PREV`).
    public func previous() throws -> CursorEntry? { try move(MDB_PREV) }
    /// The entry the cursor is on (`MDB_GET_CURRENT`).
    public func current() throws -> CursorEntry? { try move(MDB_GET_CURRENT) }

    /// The first entry whose key is `>= key` (`MDB_SET_RANGE`).
    public func seek(atLeast key: some ContiguousBytes) throws -> CursorEntry? {
        try seek(key, MDB_SET_RANGE)
    }

    /// The entry whose key is exactly `key` (`MDB_SET_KEY`).
    public func seek(exactly key: some ContiguousBytes) throws -> CursorEntry? {
        try seek(key, MDB_SET_KEY)
    }

    /// The first entry of `range`, which may lie past its upper bound
    /// (`KeyRange.isBelowUpperBound` tells).
    public func seekFirst(in range: KeyRange) throws -> CursorEntry? {
        // No key is empty, so an empty lower bound is the start.
        guard let lower = range.lowerBound, !lower.isEmpty else { return try first() }
        return try seek(atLeast: lower)
    }

    /// The last entry of `range`, which may lie before its lower bound.
    func seekLast(in range: KeyRange) throws -> CursorEntry? {
        guard let upper = range.upperBound else { return try last() }
        // No key is empty, so nothing lies at or below an empty upper bound.
        if upper.isEmpty { return nil }
        guard let entry = try seek(atLeast: upper) else { return try last() }
        if range.includesUpperBound && compareKeys(entry.key, upper) == 0 { return entry }
        return try previous()
    }

    private func move(_ operation: MDB_cursor_op) throws -> CursorEntry? {
        var key = MDB_val()
        var value = MDB_val()
        let rc = mdb_cursor_get(pointer, &key, &value, operation)
        if rc == MDB_NOTFOUND { return nil }
        try check(rc, "mdb_cursor_get on \(database)")
        return CursorEntry(key, value)
    }

    private func seek(_ key: some ContiguousBytes, _ operation: MDB_cursor_op) throws -> CursorEntry? {
        try key.withUnsafeBytes { bytes in
            guard bytes.count > 0, bytes.count <= maxKeySize else {
                throw LMDBError(code: LMDBError.badKeySize.code, context: "cursor key of \(bytes.count) bytes")
            }
            var key = MDB_val(mv_size: bytes.count, mv_data: UnsafeMutableRawPointer(mutating: bytes.baseAddress))
            var value = MDB_val()
            let rc = mdb_cursor_get(pointer, &key, &value, operation)
            if rc == MDB_NOTFOUND { return nil }
            try check(rc, "mdb_cursor_get on \(database)")
            return CursorEntry(key, value)
        }
    }
}

extension Cursor where Access == ReadWrite {
    /// Replaces the value of the current entry (`MDB_CURRENT`); the key
    /// stays the same.
    public func replaceCurrent(with value: some ContiguousBytes) throws {
        // A copy: LMDB may shift the page under a key that points into it.
        guard var key = try current().map({ Array($0.key) }) else {
            throw LMDBError(code: MDB_NOTFOUND, context: "replaceCurrent on \(database): no current entry")
        }
        try key.withUnsafeMutableBytes { keyBytes in
            try value.withUnsafeBytes { bytes in
                var key = MDB_val(mv_size: keyBytes.count, mv_data: keyBytes.baseAddress)
                var data = MDB_val(mv_size: bytes.count, mv_data: UnsafeMutableRawPointer(mutating: bytes.baseAddress))
                let rc = mdb_cursor_put(pointer, &key, &data, UInt32(MDB_CURRENT))
                if rc == MDB_MAP_FULL || rc == MDB_TXN_FULL { failureRecord?.pointee = rc }
                try check(rc, "mdb_cursor_put on \(database)")
            }
        }
    }

    /// Deletes the current entry (`mdb_cursor_del`); a following `next()`
    /// returns the entry after the deleted one.
    public func deleteCurrent() throws {
        let rc = mdb_cursor_del(pointer, 0)
        if rc == MDB_MAP_FULL || rc == MDB_TXN_FULL { failureRecord?.pointee = rc }
        try check(rc, "mdb_cursor_del on \(database)")
    }
}
