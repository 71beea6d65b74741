import Glibc

/// A directory's identity: device and inode, so that two paths to one
/// directory (a symlink, `..`) are recognised as the same environment.
struct FileID: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64

    init(path: String) throws(LMDBError) {
        var info = stat()
        guard stat(path, &info) == 0 else { throw LMDBError(code: errno, context: "stat '\(path)'") }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}
