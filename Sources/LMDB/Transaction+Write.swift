internal import CLMDB
import Foundation

extension Transaction where Access == ReadWrite {
    /// Stores `value` under `key` (`mdb_put`).
    ///
    /// - Throws: `LMDBError.keyExists` for `.noOverwrite` on a present key or
    ///   `.append` out of order (the transaction stays usable);
    ///   `LMDBError.badKeySize` for an empty or oversized key, with nothing
    ///   written.
    @inlinable
    public func put(_ value: some ContiguousBytes, forKey key: some ContiguousBytes, in database: Database, flags: PutFlags = []) throws {
        try value.withUnsafeBytes { value in
            try key.withUnsafeBytes { key in try store(value, forKey: key, in: database, flags: flags) }
        }
    }

    /// Reserves `count` bytes under `key` and lets `fill` write them in
    /// place (`MDB_RESERVE`), saving a copy for large values.
    ///
    /// - Important: `fill` must write every byte; the buffer is valid only
    ///   inside `fill`.
    @inlinable
    public func put(
        reservingCount count: Int, forKey key: some ContiguousBytes, in database: Database, flags: PutFlags = [],
        fill: (UnsafeMutableRawBufferPointer) throws -> Void
    ) throws {
        let reserved = try key.withUnsafeBytes { key in try reserve(count, forKey: key, in: database, flags: flags) }
        try fill(reserved)
    }

    /// Removes `key` (`mdb_del`).
    ///
    /// - Returns: false when the key was absent.
    @inlinable
    @discardableResult
    public func delete(_ key: some ContiguousBytes, in database: Database) throws -> Bool {
        try key.withUnsafeBytes { key in try remove(key, in: database) }
    }

    // The parts of `put` and `delete` that call liblmdb. Not generic, so the
    // public methods inline into their callers, keys and values of any type
    // are lent as bytes without a protocol call, and only these run here.

    @usableFromInline
    func store(_ value: UnsafeRawBufferPointer, forKey key: UnsafeRawBufferPointer, in database: Database, flags: PutFlags)
        throws(LMDBError)
    {
        try validate(database)
        var key = try checkedKey(key)
        var data = MDB_val(mv_size: value.count, mv_data: UnsafeMutableRawPointer(mutating: value.baseAddress))
        try checkWrite(mdb_put(pointer, database.dbi, &key, &data, flags.rawValue), "mdb_put on \(database)")
    }

    @usableFromInline
    func reserve(_ count: Int, forKey key: UnsafeRawBufferPointer, in database: Database, flags: PutFlags)
        throws(LMDBError) -> UnsafeMutableRawBufferPointer
    {
        try validate(database)
        var key = try checkedKey(key)
        var data = MDB_val(mv_size: count, mv_data: nil)
        try checkWrite(
            mdb_put(pointer, database.dbi, &key, &data, flags.rawValue | UInt32(MDB_RESERVE)), "mdb_put(reserve) on \(database)")
        return UnsafeMutableRawBufferPointer(start: data.mv_data, count: count)
    }

    @usableFromInline
    func remove(_ key: UnsafeRawBufferPointer, in database: Database) throws(LMDBError) -> Bool {
        try validate(database)
        var key = try checkedKey(key)
        let rc = mdb_del(pointer, database.dbi, &key, nil)
        if rc == MDB_NOTFOUND { return false }
        try checkWrite(rc, "mdb_del on \(database)")
        return true
    }

    /// Removes every entry of `database` and keeps the database (`mdb_drop`).
    public func removeAll(in database: Database) throws {
        try validate(database)
        try checkWrite(mdb_drop(pointer, database.dbi, 0), "mdb_drop on \(database)")
    }

    /// Deletes the named database `name`, entries and all, if it exists
    /// (`mdb_drop` with `del`): for a store format that no longer has it.
    /// Needs one database slot beyond those open, which
    /// `Environment.open` keeps spare.
    ///
    /// - Returns: false when no such database exists.
    @discardableResult
    public func deleteDatabase(named name: String) throws -> Bool {
        var dbi = MDB_dbi()
        let rc = mdb_dbi_open(pointer, name, 0, &dbi)
        if rc == MDB_NOTFOUND { return false }
        try checkWrite(rc, "mdb_dbi_open '\(name)'")
        try checkWrite(mdb_drop(pointer, dbi, 1), "mdb_drop '\(name)'")
        return true
    }
}
