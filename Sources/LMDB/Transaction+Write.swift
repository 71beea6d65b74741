internal import CLMDB
import Foundation

extension Transaction where Access == ReadWrite {
    /// Stores `value` under `key` (`mdb_put`).
    ///
    /// - Throws: `LMDBError.keyExists` for `.noOverwrite` on a present key or
    ///   `.append` out of order (the transaction stays usable);
    ///   `LMDBError.badKeySize` for an empty or oversized key, with nothing
    ///   written.
    public func put(_ value: some ContiguousBytes, forKey key: some ContiguousBytes, in database: Database, flags: PutFlags = []) throws {
        try validate(database)
        try value.withUnsafeBytes { bytes in
            var data = MDB_val(mv_size: bytes.count, mv_data: UnsafeMutableRawPointer(mutating: bytes.baseAddress))
            let rc = try withKey(key) { key in mdb_put(pointer, database.dbi, &key, &data, flags.rawValue) }
            try checkWrite(rc, "mdb_put on \(database)")
        }
    }

    /// Reserves `count` bytes under `key` and lets `fill` write them in
    /// place (`MDB_RESERVE`), saving a copy for large values.
    ///
    /// - Important: `fill` must write every byte; the buffer is valid only
    ///   inside `fill`.
    public func put(
        reservingCount count: Int, forKey key: some ContiguousBytes, in database: Database, flags: PutFlags = [],
        fill: (UnsafeMutableRawBufferPointer) throws -> Void
    ) throws {
        try validate(database)
        var data = MDB_val(mv_size: count, mv_data: nil)
        let rc = try withKey(key) { key in
            mdb_put(pointer, database.dbi, &key, &data, flags.rawValue | UInt32(MDB_RESERVE))
        }
        try checkWrite(rc, "mdb_put(reserve) on \(database)")
        try fill(UnsafeMutableRawBufferPointer(start: data.mv_data, count: count))
    }

    /// Removes `key` (`mdb_del`).
    ///
    /// - Returns: false when the key was absent.
    @discardableResult
    public func delete(_ key: some ContiguousBytes, in database: Database) throws -> Bool {
        try validate(database)
        let rc = try withKey(key) { key in mdb_del(pointer, database.dbi, &key, nil) }
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
