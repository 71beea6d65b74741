internal import CLMDB
import Glibc
import Synchronization
import SharePrimitives

/// `data.mdb` of a read-write environment, opened once more by this process
/// for the two things `MDB_WRITEMAP` needs around liblmdb:
///
/// - **A lock between map resizes and writes, across processes.** In
///   WRITEMAP mode liblmdb `ftruncate`s the file to the map's size each time
///   it maps it (`mdb_env_open`, `mdb_env_set_mapsize`). A process whose map
///   is smaller than another's would cut the file under the other's map,
///   which then dies of `SIGBUS` when it writes a page past the cut, and,
///   racing a commit, could cut off committed pages. So every process that
///   opens the store read-write through this module holds this lock
///   exclusive while it opens or resizes its map, and never sizes it below
///   the file except to shrink to what a full disk has room for (see
///   `EnvironmentHandle`); each write transaction holds it shared, and
///   first makes sure the file covers its own map (`reserve`). It is a `flock` on this descriptor: it does not interact with
///   liblmdb's POSIX locks on `lock.mdb`, and closing another descriptor of
///   `data.mdb` (scrub's) does not drop it.
/// - **Disk blocks for the whole map.** With WRITEMAP a write transaction
///   writes its pages straight into the map, and a page of a sparse file
///   that the disk has no block for kills the process with `SIGBUS` instead
///   of failing the write. `reserve` allocates every block of the map with
///   `posix_fallocate` before a write transaction touches a page; on a disk
///   too full for all of it the map shrinks to what fits, and a disk with
///   no room left is `ENOSPC`, with nothing written.
///
/// Processes that open the store with WRITEMAP without this lock (other
/// programs) are not covered; programs that do not use WRITEMAP (the
/// `mdb_*` tools, most bindings) never truncate the file.
final class MapFile: @unchecked Sendable {
    // @unchecked Sendable: `path` is immutable and `reserved` atomic; flock
    // and posix_fallocate are thread-safe system calls. `file` changes
    // once, in `close()`, which its owner calls under its gate held
    // exclusive after its writer thread has exited, once nothing can use
    // the file any more (`EnvironmentHandle.close()`); every use is made
    // under that gate, shared or exclusive, or by that writer thread.
    let path: String
    /// Nil once closed; otherwise closed when the instance ends.
    private var file: OwnedDescriptor?
    /// Bytes from the start of the file that this process has allocated
    /// blocks for, as far as it knows.
    private let reserved = Atomic<Int>(0)

    /// Opens, creating it if missing, `data.mdb` in `directory`.
    init(directory: String, mode: mode_t) throws(LMDBError) {
        path = directory + "/data.mdb"
        do { file = try OwnedDescriptor(opening: path, flags: O_RDWR | O_CREAT, mode: mode) } catch { throw LMDBError(error) }
    }

    /// Closes the descriptor, once; the handle's `close()` calls it after
    /// `mdb_env_close`, so that a closed environment holds no descriptor.
    func close() {
        file = nil
    }

    /// The open descriptor, or -1 once closed (every call on it then fails
    /// with `EBADF`).
    private var descriptor: Int32 { file?.raw ?? -1 }

    /// Bytes the file system can still give the file (`fstatvfs`: the
    /// blocks free to unprivileged users, so never more than the disk has);
    /// nil when it cannot tell.
    func freeDiskBytes() -> Int? {
        var info = statvfs()
        guard fstatvfs(descriptor, &info) == 0 else { return nil }
        return Int(info.f_bavail) * Int(info.f_frsize)
    }

    /// The file's size in bytes.
    func size() throws(LMDBError) -> Int {
        do throws(SystemError) {
            guard let size = try file?.size() else { throw SystemError(code: EBADF, context: "fstat '\(path)', closed") }
            return size
        } catch { throw LMDBError(error) }
    }

    /// Runs `body` holding the lock shared: no process resizes its map
    /// meanwhile.
    func withShared<R>(_ body: () throws(LMDBError) -> R) throws(LMDBError) -> R {
        try lock(LOCK_SH)
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }

    /// Runs `body` holding the lock exclusive: no process writes or resizes
    /// its map meanwhile.
    ///
    /// - Precondition: this process holds no shared hold (the write
    ///   transactions and resizes of one environment are kept apart by its
    ///   `ResizeGate`), which `flock` would convert instead of waiting for.
    func withExclusive<R>(_ body: () throws(LMDBError) -> R) throws(LMDBError) -> R {
        try lock(LOCK_EX)
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }

    private func lock(_ operation: Int32) throws(LMDBError) {
        while flock(descriptor, operation) != 0 {
            if errno != EINTR { throw LMDBError(code: errno, context: "flock '\(path)'") }
        }
    }

    /// The least that `reserve` allocates when the disk has room for only
    /// part of the map.
    static let minimumStep = 64 << 10

    /// Makes sure the disk has a block for every byte of a map of `mapSize`
    /// bytes, allocating what is missing; on a disk too full for all of it,
    /// allocates as much as fits.
    ///
    /// Call it inside a write transaction, holding the lock shared, before
    /// the transaction changes anything: no other process writes then, so
    /// even glibc's fallback for file systems without `fallocate` (which
    /// writes a zero into each block that reads as zero) cannot lose a write.
    ///
    /// - Complexity: one `fstat` once the map is allocated.
    /// - Returns: nil when the whole map has blocks; otherwise the size,
    ///   larger than before, up to which the disk had room: the caller must
    ///   shrink the map to it before writing.
    /// - Throws: `ENOSPC` (the typed disk-full error) when the disk had no
    ///   room for `minimumStep` more bytes; the map keeps its size, and the
    ///   next write tries again.
    func reserve(_ mapSize: Int) throws(LMDBError) -> Int? {
        let size = try self.size()
        let known = reserved.load(ordering: .relaxed)
        if known >= mapSize && size >= mapSize { return nil }
        // A file cut below what was allocated lost its blocks past the cut.
        let before = min(known, size)
        var allocated = before, step = mapSize - before
        var full: Int32 = 0
        while allocated < mapSize {
            let rc = Self.allocate(descriptor, from: allocated, count: step)
            if rc == 0 {
                allocated += step
                step = mapSize - allocated
                continue
            }
            guard rc == ENOSPC || rc == EDQUOT else {
                throw LMDBError(code: rc, context: "allocating disk blocks for the \(mapSize)-byte map of '\(path)'")
            }
            full = rc
            guard step > Self.minimumStep else { break }
            step = max(step / 2 / 4096 * 4096, Self.minimumStep)
        }
        reserved.store(allocated, ordering: .relaxed)
        if allocated == mapSize { return nil }
        guard allocated > before else {
            throw LMDBError(code: full, context: "allocating disk blocks for the \(mapSize)-byte map of '\(path)'")
        }
        return allocated
    }

    /// `posix_fallocate`, retried when a signal interrupts it.
    private static func allocate(_ descriptor: Int32, from offset: Int, count: Int) -> Int32 {
        var rc: Int32
        repeat {
            rc = posix_fallocate(descriptor, off_t(offset), off_t(count))
        } while rc == EINTR
        return rc
    }
}
