import Foundation
import Glibc
import LMDB
import SharePrimitives

/// The right to maintain one store: an exclusive `flock` on
/// `maintenance.lock` beside `data.mdb`, held for as long as this object
/// lives.
///
/// A `flock` belongs to one open of the file, so it excludes another open
/// in the same process as well as other processes, and the kernel drops it
/// when its holder exits or is killed: a maintainer that died leaves
/// nothing to clean up, and the next one simply takes the lock. The file
/// itself stays, empty; only the lock on it means anything.
///
/// A child process shares its parent's open files from `fork` (or
/// `posix_spawn`) until it execs, when `O_CLOEXEC` closes them, and a
/// `flock` lasts until the last descriptor of its open file is closed.
/// So releasing unlocks explicitly (`LOCK_UN`) before closing: otherwise a
/// child that another thread was spawning at that moment would keep the
/// lock held after its holder let go, and the next pass in this process
/// would be skipped (seen in `UploadStoreTests` under load). A `fcntl`
/// lock would not be inherited, but would not exclude a second holder in
/// the same process either, which is what keeps a scheduler and
/// `maintain` apart.
///
/// The file is one of the store's sidecars (`StoreSidecars`): an open for
/// writing makes it, before it records the store's home, because making a
/// file changes the directory's ctime, which the home includes. Made
/// later, by a maintainer, it would read as a copied store at the next
/// open, which would take a new replica id.
final class MaintenanceLock {
    /// The file's name in the store's directory.
    static let fileName = "maintenance.lock"

    private let file: OwnedDescriptor

    private init(file: consuming OwnedDescriptor) {
        self.file = file
    }

    /// Unlocks the open file itself, whoever else still holds a descriptor
    /// of it, then `file` closes.
    deinit {
        while flock(file.raw, LOCK_UN) != 0, errno == EINTR {}
    }

    static func path(in directory: String) -> String { directory + "/" + fileName }

    static func exists(in directory: String) -> Bool {
        FileStatus.size(atPath: path(in: directory)) != nil
    }

    /// Makes the empty file; `StoreSidecars` does, and syncs the directory.
    static func create(in directory: String, mode: mode_t) throws {
        let descriptor = open(path(in: directory), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)
        guard descriptor >= 0 || errno == EEXIST else { throw StoreSidecars.failure("creating \(path(in: directory))") }
        if descriptor >= 0 { close(descriptor) }
    }

    /// The lock of the store in `directory`, or nil when another process,
    /// or another holder in this one, has it. Never waits.
    ///
    /// - Throws: `ShareLogError.storage` when the file cannot be opened:
    ///   the store was opened read-only, or the file was removed since.
    static func acquire(inDirectory directory: String) throws(ShareLogError) -> MaintenanceLock? {
        let path = path(in: directory)
        let file: OwnedDescriptor
        do {
            file = try OwnedDescriptor(opening: path, flags: O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        } catch {
            throw .storage(LMDBError(error))
        }
        while flock(file.raw, LOCK_EX | LOCK_NB) != 0 {
            switch errno {
            case EINTR: continue
            case EWOULDBLOCK: return nil
            default: throw .storage(LMDBError(SystemError(code: errno, context: "flock '\(path)'")))
            }
        }
        return MaintenanceLock(file: file)
    }
}
