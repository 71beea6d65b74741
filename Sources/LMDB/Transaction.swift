internal import CLMDB
import Foundation

/// A read-only transaction: a consistent snapshot of every database.
public typealias ReadTransaction = Transaction<ReadOnly>
/// A write transaction; it can also read, and sees its own writes.
public typealias WriteTransaction = Transaction<ReadWrite>

/// An LMDB transaction, lent to the closure of `Environment.read` or
/// `Environment.write` and valid only during that closure.
///
/// It is `~Copyable` and lent `borrowing`, so it cannot be stored or
/// escape. Byte buffers handed out by its methods point into the memory map
/// and are valid only until the closure that received them returns; copy
/// what you keep. Corresponds to an `MDB_txn`.
public struct Transaction<Access: TransactionAccess>: ~Copyable {
    package let pointer: OpaquePointer
    let environmentID: Int
    let maxKeySize: Int
    /// Where write operations record `MDB_MAP_FULL` and `MDB_TXN_FULL`, so
    /// the writer can tell a full map from the closure's own failure even
    /// when the closure catches the error. Nil for reads.
    let failureRecord: UnsafeMutablePointer<Int32>?

    init(pointer: OpaquePointer, environmentID: Int, maxKeySize: Int, failureRecord: UnsafeMutablePointer<Int32>?) {
        self.pointer = pointer
        self.environmentID = environmentID
        self.maxKeySize = maxKeySize
        self.failureRecord = failureRecord
    }

    /// The transaction of a read `EnvironmentHandle.startRead` started.
    @usableFromInline
    init(_ lease: ReadLease) where Access == ReadOnly {
        self.init(
            pointer: lease.transaction, environmentID: lease.environmentID, maxKeySize: lease.maxKeySize,
            failureRecord: nil)
    }

    /// Reads the value for `key` without copying it.
    ///
    /// - Returns: `body`'s result, or nil when the key is absent.
    /// - Important: `value` points into the map and is valid only inside `body`.
    /// - Complexity: O(log n) page visits.
    @inlinable
    public func withValue<R>(
        forKey key: some ContiguousBytes, in database: Database,
        _ body: (_ value: UnsafeRawBufferPointer) throws -> R
    ) throws -> R? {
        guard let value = try key.withUnsafeBytes({ key in try lookUp(key, in: database) }) else { return nil }
        return try body(value)
    }

    /// `mdb_get`: the value for `key`, pointing into the map, or nil when
    /// the key is absent. Not generic, so `withValue` inlines into callers
    /// and only this part runs here.
    @usableFromInline
    func lookUp(_ key: UnsafeRawBufferPointer, in database: Database) throws(LMDBError) -> UnsafeRawBufferPointer? {
        try validate(database)
        var key = try checkedKey(key)
        var value = MDB_val()
        let rc = mdb_get(pointer, database.dbi, &key, &value)
        if rc == MDB_NOTFOUND { return nil }
        try check(rc, "mdb_get on \(database)")
        return UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size)
    }

    /// A copy of the value for `key`, or nil when the key is absent.
    public func value(forKey key: some ContiguousBytes, in database: Database) throws -> [UInt8]? {
        try withValue(forKey: key, in: database) { Array($0) }
    }

    /// True when `key` is present.
    @inlinable
    public func contains(_ key: some ContiguousBytes, in database: Database) throws -> Bool {
        try withValue(forKey: key, in: database) { _ in true } ?? false
    }

    /// The number of entries in `database` (`mdb_stat`); O(1).
    public func count(in database: Database) throws -> Int {
        try statistics(of: database).entries
    }

    /// `mdb_stat` of `database` as this transaction sees it.
    public func statistics(of database: Database) throws -> DatabaseStatistics {
        try validate(database)
        var stat = MDB_stat()
        try check(mdb_stat(pointer, database.dbi, &stat), "mdb_stat on \(database)")
        return DatabaseStatistics(stat)
    }

    /// Lends a cursor over `database` to `body`, and closes it afterwards.
    public func withCursor<R>(on database: Database, _ body: (borrowing Cursor<Access>) throws -> R) throws -> R {
        try validate(database)
        var cursor: OpaquePointer?
        try check(mdb_cursor_open(pointer, database.dbi, &cursor), "mdb_cursor_open on \(database)")
        guard let cursor else { throw LMDBError(code: EINVAL, context: "mdb_cursor_open on \(database)") }
        defer { mdb_cursor_close(cursor) }
        return try body(Cursor(pointer: cursor, database: database, transaction: self))
    }

    /// Visits the entries of `range` in key order, or in reverse, until
    /// `body` returns `.stop`.
    ///
    /// - Returns: how many entries `body` was given.
    /// - Important: the buffers in each entry are valid only inside `body`.
    /// - Complexity: O(log n + visited).
    @discardableResult
    public func scan(
        _ database: Database, in range: KeyRange = .all, reverse: Bool = false,
        _ body: (CursorEntry) throws -> ScanControl
    ) throws -> Int {
        try withCursor(on: database) { cursor in
            var visited = 0
            var entry = try reverse ? cursor.seekLast(in: range) : cursor.seekFirst(in: range)
            while let current = entry {
                let inRange = reverse ? range.isAboveLowerBound(current.key) : range.isBelowUpperBound(current.key)
                guard inRange else { break }
                visited += 1
                if try body(current) == .stop { break }
                entry = try reverse ? cursor.previous() : cursor.next()
            }
            return visited
        }
    }

    /// Throws unless `database` was opened by this transaction's environment.
    func validate(_ database: Database) throws(LMDBError) {
        if database.environmentID != environmentID {
            throw LMDBError(code: LMDBError.foreignDatabase.code, context: "\(database)")
        }
    }

    /// `key` as an `MDB_val`, once its size is checked: not empty and at
    /// most `maxKeySize`.
    func checkedKey(_ key: UnsafeRawBufferPointer) throws(LMDBError) -> MDB_val {
        guard key.count > 0, key.count <= maxKeySize else {
            throw LMDBError(code: LMDBError.badKeySize.code, context: "key of \(key.count) bytes (maximum \(maxKeySize))")
        }
        return MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
    }

    /// Throws for a failed write operation, recording the failures that
    /// poison the transaction.
    func checkWrite(_ code: Int32, _ context: @autoclosure () -> String) throws(LMDBError) {
        if code == MDB_MAP_FULL || code == MDB_TXN_FULL { failureRecord?.pointee = code }
        try check(code, context())
    }
}
