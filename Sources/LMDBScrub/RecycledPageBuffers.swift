import CLMDB
import Glibc
import LMDB

/// liblmdb's in-memory list of page buffers kept for reuse (`me_dpages` in
/// `struct MDB_env`), which `Environment.scrub` overwrites with zeros.
///
/// Why: a write transaction takes each single page it dirties from this list
/// and copies only the used parts of the page into it (`mdb_page_copy`,
/// `mdb_page_new` and splits), so the rest of the buffer keeps whatever page
/// it last held; at the end of the transaction every buffer goes back on the
/// list. Those buffers hold the bytes of deleted values for as long as the
/// environment stays open, and every later commit can write them into the
/// gaps of the pages it writes: zeroing the file alone would hold only until
/// the next commit. liblmdb has no call that empties the list (only
/// `mdb_env_close` frees it).
///
/// How: `MDB_env` is private to liblmdb. The field offsets below are those
/// of liblmdb 0.9.24 built for a 64-bit (LP64) host without `MDB_DEVEL`
/// (Debian's build). Before anything is written, these fields are compared
/// with what the public API and LMDB's invariants say they hold: `me_fd`,
/// `me_psize`, `me_maxreaders`, `me_pid`, `me_path`, `me_map` against the
/// meta page pointers into it (`me_metas`), the running write transaction
/// (`me_txn`, `me_txn0`), `me_mapsize`, `me_maxpg`, an empty `me_pgstate`
/// just before `me_dpages`, and `me_maxfree_1pg` and `me_nodemax` just after
/// it. Any difference refuses the scrub with `LMDBError.versionMismatch`.
///
/// The list is touched only by the thread that holds the write transaction:
/// `clear` must run on the writer thread, inside a transaction that has not
/// allocated a page, so that every buffer on the list is unused.
struct RecycledPageBuffers {
    /// Where `me_dpages` sits in `MDB_env`.
    private static let listOffset = 192
    /// The first bytes of a listed buffer hold the link to the next one
    /// (`mp_next`, in place of `mp_pgno`).
    private static let linkSize = 8

    private let list: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    private let pageSize: Int

    /// Finds the list in `environment` and checks that it is where it looks.
    ///
    /// - Parameter transaction: the running top-level write transaction.
    /// - Throws: `LMDBError.versionMismatch` when a field differs.
    init(environment: OpaquePointer, transaction: OpaquePointer, pageSize: Int, context: String) throws(LMDBError) {
        let base = UnsafeMutableRawPointer(environment)
        var descriptor: Int32 = -1
        var readers: UInt32 = 0
        var path: UnsafePointer<CChar>?
        var info = MDB_envinfo()
        try check(mdb_env_get_fd(environment, &descriptor), "mdb_env_get_fd")
        try check(mdb_env_get_maxreaders(environment, &readers), "mdb_env_get_maxreaders")
        try check(mdb_env_get_path(environment, &path), "mdb_env_get_path")
        try check(mdb_env_info(environment, &info), "mdb_env_info")
        func field<T>(_ offset: Int, _ type: T.Type) -> T { base.load(fromByteOffset: offset, as: T.self) }
        // mdb_env_info does not report the map's address (its me_mapaddr is
        // the meta page's mm_address, nil without MDB_FIXEDMAP), but the
        // meta page pointers must point into the map.
        let map = field(56, UnsafeRawPointer?.self)
        let expected: [(name: String, matches: Bool)] = [
            ("me_fd", field(0, Int32.self) == descriptor),
            ("me_psize", field(16, UInt32.self) == UInt32(pageSize)),
            ("me_maxreaders", field(24, UInt32.self) == readers),
            ("me_pid", field(40, Int32.self) == getpid()),
            ("me_path", field(48, UnsafeRawPointer?.self) == path.map(UnsafeRawPointer.init)),
            ("me_map", map != nil),
            ("me_metas[0]", field(72, UnsafeRawPointer?.self) == map.map { $0 + PageLayout.headerSize }),
            ("me_metas[1]", field(80, UnsafeRawPointer?.self) == map.map { $0 + pageSize + PageLayout.headerSize }),
            ("me_txn", field(96, OpaquePointer?.self) == transaction),
            ("me_txn0", field(104, OpaquePointer?.self) == transaction),
            ("me_mapsize", field(112, Int.self) == info.me_mapsize),
            ("me_maxpg", field(128, Int.self) == info.me_mapsize / pageSize),
            ("me_pghead", field(176, UnsafeRawPointer?.self) == nil),
            ("me_pglast", field(184, UInt64.self) == 0),
            ("me_maxfree_1pg", field(216, Int32.self) == Int32((pageSize - PageLayout.headerSize) / 8 - 1)),
            ("me_nodemax", field(220, UInt32.self) == UInt32((((pageSize - PageLayout.headerSize) / 2) & ~1) - 2)),
        ]
        let different = expected.filter { !$0.matches }.map(\.name)
        guard different.isEmpty else {
            throw LMDBError(
                code: MDB_VERSION_MISMATCH,
                context: "\(context): liblmdb's MDB_env is not laid out as in 0.9.24 "
                    + "(\(different.joined(separator: ", ")) differ), "
                    + "so its recycled page buffers cannot be cleared")
        }
        list = (base + Self.listOffset).assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
        self.pageSize = pageSize
    }

    /// Overwrites every listed buffer with zeros, except its link.
    ///
    /// - Returns: how many buffers it cleared.
    func clear() -> Int {
        var cleared = 0
        var buffer = list.pointee
        while let current = buffer {
            memset(current + Self.linkSize, 0, pageSize - Self.linkSize)
            buffer = current.load(as: UnsafeMutableRawPointer?.self)
            cleared += 1
        }
        return cleared
    }
}
