internal import CLMDB
import Glibc
import SharePrimitives

/// A hot, compacted copy of an environment: LMDB's `mdb_env_copyfd2` with
/// `MDB_CP_COMPACT`, behind the wrapper's rules for transactions.
extension Environment {
    /// Writes a compacted copy of the environment's last committed
    /// snapshot into `directory/data.mdb`, a new file (mode
    /// `Options.fileMode`), then syncs the file and the directory.
    ///
    /// **Consistent and hot.** The copy is of one read snapshot, as a read
    /// transaction sees it: writers in this process and in others go on
    /// while it runs, and it holds none of their later commits. Like every
    /// read, it holds a reader slot and the resize gate shared for as long
    /// as it runs, so map growth in this process waits for it.
    ///
    /// **Compacted.** Pages are renumbered from the start and free pages
    /// are left out, so the file is as large as the data. No free page of
    /// this environment's file reaches the copy. Its pages' unused parts
    /// may hold bytes of other pages of the same snapshot (liblmdb copies
    /// through reused buffers), and the ends of overflow runs are copied
    /// as they are in this file: the copy holds nothing the snapshot's
    /// pages do not, but it is not scrubbed. Open it for writing and
    /// `scrub()` it before its unused bytes may be trusted.
    ///
    /// **Nothing half-written.** The file is made with `O_EXCL`; on any
    /// failure it is removed again, so `directory` then holds no
    /// `data.mdb`. No `lock.mdb` is made: the copy's first open makes one.
    ///
    /// Cost: O(pages in use): a pass over the snapshot's trees, written
    /// sequentially, on a thread liblmdb starts for the writing.
    ///
    /// - Throws: `LMDBError` with the `errno` of a failed file call
    ///   (`EEXIST` when `directory` already holds a `data.mdb`, `ENOSPC`),
    ///   or LMDB's code (`MDB_READERS_FULL` when no reader slot frees;
    ///   `MDB_INCOMPATIBLE` for a file that leaks pages); `closed` after
    ///   `close()`; `forkedProcess` in a forked child.
    public func copyCompacted(into directory: String) throws(LMDBError) {
        try handle.ensureNotForked()
        let path = directory.hasSuffix("/") ? directory + "data.mdb" : directory + "/data.mdb"
        let file: OwnedDescriptor
        do {
            file = try OwnedDescriptor(
                opening: path, flags: O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: mode_t(handle.options.fileMode))
        } catch {
            throw LMDBError(error)
        }
        do throws(LMDBError) {
            try copyCompacted(to: file.raw, path: path)
            guard fsync(file.raw) == 0 else { throw LMDBError(code: errno, context: "fsync '\(path)'") }
            try Self.syncDirectory(directory)
        } catch {
            unlink(path)
            throw error
        }
    }

    /// `mdb_env_copyfd2(MDB_CP_COMPACT)` into `descriptor`, which is empty,
    /// with the gate held shared for the copy's read transaction. A copy
    /// that could not begin its transaction wrote nothing; it is tried
    /// again after adopting a map another process grew, or after clearing
    /// the reader slots of dead processes once.
    private func copyCompacted(to descriptor: Int32, path: String) throws(LMDBError) {
        var clearedReaders = false
        while true {
            let depth = handle.gate.depthOnCurrentThread
            let rc = try handle.whileOpen { () throws(LMDBError) -> Int32 in
                mdb_env_copyfd2(handle.pointer, descriptor, UInt32(MDB_CP_COMPACT))
            }
            if rc == MDB_SUCCESS { return }
            // A failed copy may have written part of the file.
            guard ftruncate(descriptor, 0) == 0, lseek(descriptor, 0, SEEK_SET) == 0 else {
                throw LMDBError(code: errno, context: "truncating '\(path)'")
            }
            if rc == MDB_MAP_RESIZED && depth == 0 {
                try handle.adoptResizedMap()
            } else if rc == MDB_READERS_FULL, !clearedReaders, try handle.whileOpen({ () throws(LMDBError) in try handle.clearStaleReaders() }) > 0 {
                clearedReaders = true
            } else {
                throw LMDBError(code: rc, context: "mdb_env_copyfd2(MDB_CP_COMPACT) of '\(self.path)' into '\(path)'")
            }
        }
    }

    /// `fsync` of a directory, so that a file made in it survives a power cut.
    private static func syncDirectory(_ directory: String) throws(LMDBError) {
        let descriptor = Glibc.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw LMDBError(code: errno, context: "open '\(directory)'") }
        defer { Glibc.close(descriptor) }
        guard fsync(descriptor) == 0 else { throw LMDBError(code: errno, context: "fsync '\(directory)'") }
    }
}
