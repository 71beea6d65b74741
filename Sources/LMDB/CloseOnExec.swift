internal import CLMDB
import Glibc

/// Keeps an environment's descriptors out of the programs this process
/// starts.
///
/// liblmdb 0.9.x opens `data.mdb` (`me_fd`, the descriptor
/// `mdb_env_get_fd` returns) without `O_CLOEXEC`, on purpose: its comment
/// in `mdb_fopen` leaves it to the caller. So every program started with
/// fork and exec (`posix_spawn`, Foundation's `Process`, `system`) inherited
/// a descriptor of every open store: the child could read every record, and
/// the file's blocks stayed allocated after the store was deleted for as
/// long as the child ran. Its other descriptors (`lock.mdb`, and without
/// `MDB_WRITEMAP` a second one of `data.mdb`) are close-on-exec in 0.9.24
/// and 0.9.36, but no API returns them, and the wrapper must not depend on
/// one version's choice.
///
/// So right after `mdb_env_open`, `apply`:
/// 1. sets `FD_CLOEXEC` on the descriptor `mdb_env_get_fd` returns, first,
///    because it is the one known to leak and it needs no scan;
/// 2. then walks `/proc/self/fd` and sets it on every descriptor that
///    refers to the environment's `data.mdb` or `lock.mdb`, whichever
///    version opened which. A descriptor is matched by device and inode
///    (`fstat`), not by the path `readlink` gives: that path is absolute and
///    resolved, so it differs from the one given to `open` when that one is
///    relative or crosses a symlink, and gains " (deleted)" once the file is
///    unlinked. The walk also marks any other descriptor of those two files
///    that this process holds (the wrapper's own are close-on-exec already):
///    no child should inherit a store's file.
///
/// Without `/proc` (some sandboxes) only step 1 runs. A child forked by
/// another thread while `mdb_env_open` runs, before step 1, still inherits
/// `data.mdb`: liblmdb opens it by path, so nothing can make that atomic.
enum CloseOnExec {
    /// Marks every descriptor of the environment `env`, opened in
    /// `directory`, close-on-exec.
    ///
    /// - Throws: `LMDBError` with the `errno` of a failed `fcntl` on the
    ///   data file's descriptor; descriptors found in `/proc/self/fd` that
    ///   close meanwhile are skipped.
    static func apply(to env: OpaquePointer, directory: String) throws(LMDBError) {
        var dataDescriptor: Int32 = -1
        try check(mdb_env_get_fd(env, &dataDescriptor), "mdb_env_get_fd")
        guard set(dataDescriptor) else { throw LMDBError(code: errno, context: "fcntl(FD_CLOEXEC) on '\(directory)/data.mdb'") }
        var files: [FileIdentity] = []
        var info = stat()
        if fstat(dataDescriptor, &info) == 0 { files.append(FileIdentity(info)) }
        if stat(directory + "/lock.mdb", &info) == 0 { files.append(FileIdentity(info)) }
        for descriptor in openDescriptors() where descriptor != dataDescriptor {
            guard fstat(descriptor, &info) == 0, files.contains(FileIdentity(info)) else { continue }
            _ = set(descriptor)
        }
    }

    /// A file's device and inode.
    private struct FileIdentity: Equatable {
        let device: UInt64
        let inode: UInt64

        init(_ info: stat) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
        }
    }

    /// Sets `FD_CLOEXEC` on `descriptor` unless it is set; false on failure.
    private static func set(_ descriptor: Int32) -> Bool {
        let flags = fcntl(descriptor, F_GETFD)
        guard flags >= 0 else { return false }
        return flags & FD_CLOEXEC != 0 || fcntl(descriptor, F_SETFD, flags | FD_CLOEXEC) == 0
    }

    /// The descriptors open in this process, from `/proc/self/fd`, but the
    /// one reading it; empty without `/proc`.
    private static func openDescriptors() -> [Int32] {
        guard let listing = opendir("/proc/self/fd") else { return [] }
        defer { closedir(listing) }
        let own = dirfd(listing)
        var descriptors: [Int32] = []
        while let entry = readdir(listing) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if let descriptor = Int32(name), descriptor != own { descriptors.append(descriptor) }
        }
        return descriptors
    }
}
