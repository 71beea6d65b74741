internal import CFutex
import Foundation
import Glibc
import SharePrimitives

/// The store's cross-process commit signal (docs/SYNC.md "The commit
/// signal"): a 32-bit counter at the start of `commit.signal` beside
/// `data.mdb`, which every process that has the store open maps shared.
/// Each commit adds one and wakes every waiter, in every process, with a
/// futex; a waiter sleeps while the counter holds the value it last saw.
///
/// It is a hint, never the truth: a waiter re-reads the log's end after
/// each wake, and also after a timeout, so a lost wake (a writer killed
/// between its commit and its ring) costs one timeout and a spurious one
/// costs one read. Nothing in it needs cleaning up: the file holds only
/// the counter, a process that dies leaves no waiter or lock behind, and
/// the kernel keys the futex by the file, not by a process.
///
/// The file is made whole (a temporary name, sized, renamed) by an open
/// for writing, with the high-water file (`StoreSidecars`), because making
/// a file changes the directory's ctime, which the store's home records.
/// Anything else only opens it: a process that finds it missing or cannot
/// map it has no signal, and its waiters fall back to their timeout.
///
/// An open for writing also holds a shared `flock` on the file until it
/// closes (`releaseWriterLock`, from `ShareStore.close()`) or goes, so an
/// operator's renewal can tell that no other writer has the store open
/// (`whileSoleWriter`). A `flock` belongs to this open of the file and dies
/// with its process, so it needs no cleaning up either.
///
/// `@unchecked Sendable`: the mapping and the descriptor are immutable
/// after `init` and released in `deinit`; the counter is read and written
/// only through CFutex's atomics, which other processes share; `flock`
/// calls on the descriptor are the kernel's to order.
final class CommitSignal: @unchecked Sendable {
    static let name = "commit.signal"
    /// The file's size: the counter, and room for nothing else yet.
    static let size = 64

    private let word: UnsafeMutablePointer<UInt32>
    private let descriptor: Int32

    static func path(in directory: String) -> String {
        (directory as NSString).appendingPathComponent(name)
    }

    /// Whether the file is there at its full size (a power cut right after
    /// an unsynced make could leave it empty: an open for writing makes it
    /// again).
    static func isWhole(in directory: String) -> Bool {
        (FileStatus.size(atPath: path(in: directory)) ?? 0) >= size
    }

    /// Maps the store's signal, read-write when `writable`; nil when the
    /// file is missing, too short or cannot be mapped. A writable one takes
    /// its shared lock, waiting while a renewal holds the lock exclusive.
    init?(in directory: String, writable: Bool) {
        let descriptor = open(Self.path(in: directory), (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_size >= Self.size,
              let mapping = mmap(nil, Self.size, writable ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED, descriptor, 0),
              mapping != MAP_FAILED
        else {
            close(descriptor)
            return nil
        }
        if writable { Self.lock(descriptor, LOCK_SH) }
        self.descriptor = descriptor
        word = mapping.bindMemory(to: UInt32.self, capacity: 1)
    }

    deinit {
        munmap(word, Self.size)
        close(descriptor)
    }

    /// Runs `body` while this is the only open for writing of the store,
    /// in any process, with the lock exclusive so that none begins
    /// meanwhile; nil, without running it, while another holds its lock.
    /// Requires a writable signal.
    func whileSoleWriter<R, Failure: Error>(_ body: () throws(Failure) -> R) throws(Failure) -> R? {
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return nil }
        defer { Self.lock(descriptor, LOCK_SH) }
        return try body()
    }

    /// Gives up the shared lock an open for writing holds: this open no
    /// longer counts as a writer of the store, for `whileSoleWriter` here
    /// or in another process. The mapping stays until `deinit`, so a
    /// watcher still waiting on the counter wakes as before.
    ///
    /// - Precondition: no `whileSoleWriter` is running on this signal (it
    ///   would take the lock again as it ends); `ShareStore.close()` waits
    ///   for its store's one.
    func releaseWriterLock() {
        while flock(descriptor, LOCK_UN) != 0, errno == EINTR {}
    }

    /// `flock`, again after a signal interrupts it. A lock that cannot be
    /// taken otherwise (no `flock` on the file system) is done without:
    /// the renewal it guards then finds no other writer.
    private static func lock(_ descriptor: Int32, _ operation: Int32) {
        while flock(descriptor, operation) != 0, errno == EINTR {}
    }

    /// Makes the file, zeroed, in place of any there: sized under a
    /// temporary name (synced when `durable`) and renamed, so no process
    /// ever maps it shorter than `size` (touching a page past a file's end
    /// is SIGBUS).
    static func create(in directory: String, mode: mode_t, durable: Bool) throws {
        let final = path(in: directory), temporary = final + ".tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw StoreSidecars.failure("creating \(temporary)") }
        defer { close(descriptor) }
        guard ftruncate(descriptor, off_t(size)) == 0 else { throw StoreSidecars.failure("sizing \(temporary)") }
        if durable, fsync(descriptor) != 0 { throw StoreSidecars.failure("syncing \(temporary)") }
        guard rename(temporary, final) == 0 else { throw StoreSidecars.failure("renaming \(temporary)") }
    }

    /// The counter now.
    var value: UInt32 { sharelog_futex_load(word) }

    /// Announces a commit: adds one and wakes every waiter in every
    /// process. One atomic add and one system call; never blocks, never
    /// fails in a way the commit should hear of.
    func ring() {
        _ = sharelog_futex_ring(word)
    }

    /// Wakes every waiter without announcing anything (they find the
    /// counter unchanged): how a process stops its own watcher thread.
    func wakeWaiters() {
        _ = sharelog_futex_wake(word)
    }

    /// Sleeps while the counter is `seen`, at most `timeout`; returns on a
    /// ring, on a spurious wake, at once when it has already moved, or when
    /// the timeout passes. The caller reads `value` again to tell.
    func wait(whileValueIs seen: UInt32, timeout: Duration) {
        _ = sharelog_futex_wait(word, seen, timeout.nanosecondsToWait)
    }
}
