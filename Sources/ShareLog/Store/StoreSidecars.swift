import Foundation
import Glibc
import LMDB

/// The files an open for writing keeps beside `data.mdb`: the high-water
/// file (`HighWaterFile`), the commit signal (`CommitSignal`) and the
/// maintenance lock (`MaintenanceLock`).
///
/// Making a file changes the directory's ctime, which the store's home
/// records (docs/SYNC.md "Identity"), so only an open for writing makes
/// them, all at once, and tells the open what the home was just before, so
/// that it takes the change for its own and not for a copy's.
enum StoreSidecars {
    /// Whether every file is there (the signal at its full size).
    static func allExist(in directory: String) -> Bool {
        HighWaterFile.exists(in: directory) && CommitSignal.isWhole(in: directory) && MaintenanceLock.exists(in: directory)
    }

    /// Makes whichever file is missing (or, for the signal, short), holding an exclusive `flock` of the
    /// store's directory (which changes nothing in it), so that processes
    /// opening a store without them at once never both make one: they
    /// shared one temporary name, and the second rename failed, failing its
    /// open (a follower racing `stats` on a new store, `HostileNetworkTests`).
    /// When `durable`, the directory is synced after, so that a power cut
    /// cannot undo a file (and the ctime the open then records) after the
    /// open acknowledged anything. Returns what `before` gives just before
    /// the first file is made (the home, whose ctime the making changes);
    /// nil when all were there.
    static func createMissing(in directory: String, durable: Bool, mode: mode_t, before: () throws -> [UInt8]) throws -> [UInt8]? {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure("opening \(directory)") }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else { throw failure("locking \(directory)") }
        }
        // Unlocked before the close, so a child another thread forks
        // meanwhile cannot hold the lock until its exec (`MaintenanceLock`).
        defer { flock(descriptor, LOCK_UN) }
        let makeHighWater = !HighWaterFile.exists(in: directory), makeSignal = !CommitSignal.isWhole(in: directory)
        let makeLock = !MaintenanceLock.exists(in: directory)
        guard makeHighWater || makeSignal || makeLock else { return nil }
        let home = try before()
        if makeLock { try MaintenanceLock.create(in: directory, mode: mode) }
        if makeSignal { try CommitSignal.create(in: directory, mode: mode, durable: durable) }
        if makeHighWater { try HighWaterFile.create(in: directory, durable: durable) }
        if durable { try syncDirectory(directory) }
        return home
    }

    /// `fsync` of a directory: what was made, removed or renamed in it
    /// survives a power cut.
    static func syncDirectory(_ directory: String) throws(ShareLogError) {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure("opening \(directory)") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw failure("syncing \(directory)") }
    }

    /// The error a failed call leaves in `errno`, as the store reports a
    /// storage failure (`ShareLogError.storage`). A short write is ENOSPC.
    static func failure(_ context: String, written: Int = -1) -> ShareLogError {
        .storage(LMDBError(code: written >= 0 ? ENOSPC : errno, context: context))
    }
}
