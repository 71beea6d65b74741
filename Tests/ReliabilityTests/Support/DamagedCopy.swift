import Foundation
import TestSupport

/// A copy of a store, made by lmdb-utils' `mdb_copy`, that a test damages
/// by writing raw bytes into its databases with Python's lmdb binding: no
/// ShareLog code touches the copy.
struct DamagedCopy {
    let directory: TemporaryDirectory
    var path: String { directory.path }

    /// Writes one key and value, in one transaction of the copy.
    private static let put = """
        import lmdb, sys
        env = lmdb.open(sys.argv[1], max_dbs=10)
        with env.begin(write=True) as txn:
            db = env.open_db(sys.argv[2].encode(), txn=txn, create=False)
            txn.put(bytes.fromhex(sys.argv[3]), bytes.fromhex(sys.argv[4]), db=db)
        env.close()
        """

    /// Copies the store at `source`, which may be open, into a fresh directory.
    init(of source: String, label: String = #function) throws {
        directory = TemporaryDirectory(label)
        try ExternalTool.succeed(ExternalTool.mdbCopy, [source, directory.path], package: "lmdb-utils")
    }

    /// Stores `value` under `key` in the copy's database `database`.
    func put(_ value: [UInt8], forKey key: [UInt8], in database: String) throws {
        try ExternalTool.succeed(
            ExternalTool.python, ["-c", Self.put, path, database, FormatBytes.hexText(key), FormatBytes.hexText(value)],
            package: "python3-lmdb")
    }
}
