internal import CLMDB
import Glibc
import LMDB

extension Environment {
    /// Overwrites with zeros every byte of `data.mdb` that holds no data of
    /// the last commit and that no live snapshot can read — LMDB's
    /// counterpart of SQLite's `secure_delete` — and reports what it found.
    ///
    /// LMDB never erases: a value deleted or overwritten stays on disk until
    /// its space is reused. Scrub zeroes, without touching any byte LMDB
    /// uses and without changing anything through LMDB:
    /// - free pages, whole, that no live snapshot can read;
    /// - in each branch and leaf page, the gap between the node pointers and
    ///   the nodes (a deleted node's neighbours move and leave old bytes
    ///   there, and LMDB copies only the used parts of a page into the page
    ///   it reuses) and the padding byte after an odd-sized node;
    /// - on overflow pages, the bytes after the end of each value;
    /// - the unused end of each free-list record;
    /// - pages past the last page of the committed snapshot, left by
    ///   transactions that never committed (with `MDB_WRITEMAP` an aborted
    ///   transaction's pages stay in the file).
    ///
    /// **Guarantee.** When scrub returns, every byte of `data.mdb` is zero, a
    /// byte the last committed snapshot uses (meta pages, page headers, node
    /// pointers, nodes, keys, values, free-list entries), or part of a free
    /// page deferred because a live reader's older snapshot may still read
    /// it (`ScrubReport.freePagesDeferred`). So a value deleted or overwritten
    /// by a commit before the scrub, and read by no live snapshot, exists
    /// nowhere in `data.mdb`; the zeros are on disk (`fdatasync`), and later
    /// commits, by any process that opened the environment through this
    /// module, do not bring it back: with `MDB_WRITEMAP` a commit writes
    /// the map's own pages, and changes only the bytes it uses.
    ///
    /// **When it holds.**
    /// - Scrub runs as a write on the writer thread, alone in its
    ///   transaction, holding LMDB's write lock: no writer in any process
    ///   allocates a page meanwhile. Readers carry on; none reads the bytes
    ///   it zeroes.
    /// - A page freed by transaction T is zeroed only when no live reader has
    ///   a snapshot older than T (slots of dead processes are cleared first,
    ///   `mdb_reader_check`). Scrub again once long readers end.
    /// - Before writing, it syncs `data.mdb`, so LMDB can no longer fall back
    ///   to the older meta page, whose snapshot uses pages the last commit
    ///   freed (which `Durability.noMetaSync` would otherwise allow).
    /// - One exception, of single bytes: a page split that is not an append
    ///   builds half a page in a heap buffer liblmdb reuses, and the padding
    ///   byte after an odd-sized node there is never written; it can carry a
    ///   byte of an inline value from a page the same process split before.
    ///   Values on overflow pages or in databases written in key order are
    ///   never in such a buffer (docs/LMDB.md, "MDB_WRITEMAP").
    /// - A process that opened the environment without `MDB_WRITEMAP` (a
    ///   program other than this module) and wrote or deleted the values
    ///   keeps them in recycled page buffers until it closes it.
    /// - It does not cover copies outside `data.mdb`: blocks a file system
    ///   freed or moved (earlier unlinked files, copy-on-write file systems
    ///   and their snapshots, journals), blocks an SSD remapped by wear
    ///   levelling, backups and `mdb_copy` output, swap and core dumps.
    ///
    /// **Checks first; a refused scrub writes nothing.**
    /// - liblmdb 0.9 on a 64-bit little-endian host, else
    ///   `LMDBError.versionMismatch`;
    /// - the page size from `mdb_env_stat` is a power of two LMDB 0.9 uses
    ///   and is recorded in both meta pages, which must be meta pages with
    ///   magic `0xBEEFC0DE` (`LMDBError.invalid`) and data version 1
    ///   (`LMDBError.versionMismatch`);
    /// - the newest meta page's transaction id, last page and database
    ///   counts, read at the offsets of 64-bit page numbers, equal what
    ///   `mdb_env_info`, `mdb_txn_id` and `mdb_stat` report;
    /// - every page of every tree is what its parent says, its nodes fill it
    ///   exactly from `mp_upper`, each tree matches its counts, and every
    ///   page up to the last is a meta page, a tree page or a free page,
    ///   once; else `LMDBError.corrupted`;
    /// - no database has `MDB_DUPSORT`, whose sub-pages scrub does not walk
    ///   (`LMDBError.incompatible`).
    ///
    /// **Cost.** O(pages in use): each tree page is read once with `pread`
    /// (of an overflow run, only its header and tail), and so is each free
    /// page. Past the last page the file (as large as the map) is read only
    /// where the file system holds data (`SEEK_DATA`): pages uncommitted
    /// transactions wrote, and what readahead of the map brought in; a file
    /// system without holes makes that O(map). Memory is one bit per page,
    /// 1 MiB, and 16 bytes per range to zero. Only bytes not already zero are
    /// written, followed by two `fdatasync`s; a scrub that finds nothing
    /// writes and syncs nothing. Every write, in this process and in others,
    /// waits for it.
    ///
    /// - Throws: the errors above; `LMDBError.nestedWrite` inside a
    ///   transaction of this environment; `LMDBError.readOnly` for a
    ///   read-only environment; I/O errors with their `errno`.
    @available(*, noasync, message: "use the async scrub from async code")
    @discardableResult
    public func scrub() throws -> ScrubReport {
        let answer = WriteAnswer<ScrubReport>()
        try submit(WriteRequest(scrubbing(), runsAlone: true, deliver: answer.deliver))
        return try answer.wait()
    }

    /// The async form of `scrub()`: suspends instead of blocking a thread.
    @discardableResult
    public func scrub() async throws -> ScrubReport {
        let body = scrubbing()
        return try await withCheckedThrowingContinuation { continuation in
            do {
                try submit(WriteRequest(body, runsAlone: true) { continuation.resume(with: $0) })
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }

    /// The write closure of a scrub. It changes nothing through LMDB, so the
    /// writer's commit of its transaction writes nothing either.
    private func scrubbing() -> @Sendable (borrowing WriteTransaction) throws -> ScrubReport {
        let handle = self.handle
        return { txn in try Environment.scrubCommittedSnapshot(of: handle, in: txn.pointer) }
    }

    /// Checks, walks the last committed snapshot, then writes the zeros.
    ///
    /// - Precondition: `txn` is a top-level write transaction of `handle`
    ///   that has changed nothing.
    private static func scrubCommittedSnapshot(
        of handle: EnvironmentHandle, in txn: OpaquePointer
    ) throws(LMDBError) -> ScrubReport {
        let context = "scrub of '\(handle.path)'"
        try checkLibrary(context)
        var environmentStat = MDB_stat()
        try check(mdb_env_stat(handle.pointer, &environmentStat), "mdb_env_stat")
        let pageSize = Int(environmentStat.ms_psize)
        guard pageSize.nonzeroBitCount == 1, PageLayout.pageSizes.contains(pageSize) else {
            throw LMDBError(code: MDB_VERSION_MISMATCH, context: "\(context): page size \(pageSize) is not one LMDB 0.9 uses")
        }
        let file = try DataFile(path: dataFilePath(of: handle))
        var descriptor: Int32 = -1
        try check(mdb_env_get_fd(handle.pointer, &descriptor), "mdb_env_get_fd")
        guard try file.isSameFile(as: descriptor) else {
            throw LMDBError(code: MDB_INVALID, context: "\(context): '\(file.path)' is not the file LMDB has open")
        }
        let meta = try MetaPage.newest(in: file, pageSize: pageSize, context: context)
        try checkSnapshot(meta, of: handle, in: txn, context: context)
        _ = try handle.clearStaleReaders()
        let readers = try ReaderTable.read(handle.pointer, context: context)
        let walk = PageWalk(
            meta: meta, fileSize: try file.size(), oldestReaderSnapshot: readers.oldestSnapshot, context: context)
        let plan = try walk.run(file)
        if !plan.ranges.isEmpty {
            try file.synchronize()
            try plan.apply(to: file)
            try file.synchronize()
        }
        return plan.report
    }

    /// Refuses any library but liblmdb 0.9, and any host but a 64-bit
    /// little-endian one, whose page format scrub knows.
    private static func checkLibrary(_ context: String) throws(LMDBError) {
        var major: Int32 = 0, minor: Int32 = 0, patch: Int32 = 0
        _ = mdb_version(&major, &minor, &patch)
        guard major == 0, minor == 9 else {
            throw LMDBError(
                code: MDB_VERSION_MISMATCH,
                context: "\(context): liblmdb is \(major).\(minor).\(patch); scrub knows the page format of 0.9")
        }
        guard MemoryLayout<Int>.size == 8, UInt16(1).littleEndian == 1 else {
            throw LMDBError(code: MDB_VERSION_MISMATCH, context: "\(context): scrub needs a 64-bit little-endian host")
        }
    }

    /// `data.mdb` in the environment's directory, or the path itself for an
    /// environment opened with `MDB_NOSUBDIR`.
    private static func dataFilePath(of handle: EnvironmentHandle) throws(LMDBError) -> String {
        var path: UnsafePointer<CChar>?
        try check(mdb_env_get_path(handle.pointer, &path), "mdb_env_get_path")
        guard let path else { throw LMDBError(code: EINVAL, context: "mdb_env_get_path") }
        var flags: UInt32 = 0
        try check(mdb_env_get_flags(handle.pointer, &flags), "mdb_env_get_flags")
        let directory = String(cString: path)
        return flags & UInt32(MDB_NOSUBDIR) != 0 ? directory : directory + "/data.mdb"
    }

    /// Checks that `meta`, read from the file at the offsets of a 64-bit
    /// build, is the snapshot `txn` builds on, as LMDB itself reports it.
    private static func checkSnapshot(
        _ meta: MetaPage, of handle: EnvironmentHandle, in txn: OpaquePointer, context: String
    ) throws(LMDBError) {
        var info = MDB_envinfo()
        try check(mdb_env_info(handle.pointer, &info), "mdb_env_info")
        guard meta.transactionID == UInt64(info.me_last_txnid), meta.lastPage == UInt64(info.me_last_pgno),
            UInt64(mdb_txn_id(txn)) == meta.transactionID + 1
        else {
            throw LMDBError(
                code: MDB_CORRUPTED,
                context: "\(context): the newest meta page (transaction \(meta.transactionID), last page \(meta.lastPage)) "
                    + "is not what LMDB reports (transaction \(info.me_last_txnid), last page \(info.me_last_pgno), "
                    + "writing \(mdb_txn_id(txn)))")
        }
        guard (Int(meta.lastPage) + 1) * meta.pageSize <= info.me_mapsize else {
            throw LMDBError(code: MDB_CORRUPTED, context: "\(context): last page \(meta.lastPage) lies past the map")
        }
        for (dbi, record, name) in [(MDB_dbi(0), meta.freeList, "free list"), (MDB_dbi(1), meta.main, "main database")] {
            var stat = MDB_stat()
            try check(mdb_stat(txn, dbi, &stat), "mdb_stat(\(name))")
            guard record.matches(stat) else {
                throw LMDBError(
                    code: MDB_CORRUPTED,
                    context: "\(context): the \(name) in the newest meta page has \(record.summary), "
                        + "mdb_stat reports depth \(stat.ms_depth), \(stat.ms_branch_pages) branch, "
                        + "\(stat.ms_leaf_pages) leaf, \(stat.ms_overflow_pages) overflow pages, \(stat.ms_entries) entries")
            }
        }
    }
}
