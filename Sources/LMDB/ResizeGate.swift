import Glibc

/// The process-wide gate between transactions and map resizing.
///
/// `mdb_env_set_mapsize` remaps the file under any live read transaction in
/// this process, which is undefined behaviour. Every transaction holds the
/// gate shared; a resize holds it exclusive, so it waits for the live
/// transactions and new ones wait for it.
///
/// The lock prefers writers, so a steady stream of readers cannot starve a
/// resize. Because such a lock deadlocks on recursive shared locking, the gate
/// counts its holds per thread and takes the lock only for the outermost one:
/// a read inside a read on the same thread does not lock again.
final class ResizeGate: @unchecked Sendable {
    // @unchecked Sendable: the rwlock is the synchronisation itself; it is
    // allocated once, never moved, and destroyed only in deinit, after every
    // holder is gone (holders keep the owning handle alive).
    private let lock: UnsafeMutablePointer<pthread_rwlock_t>
    /// Per-thread count of shared holds of this gate.
    private let depthKey: pthread_key_t

    init() {
        lock = .allocate(capacity: 1)
        var attributes = pthread_rwlockattr_t()
        pthread_rwlockattr_init(&attributes)
        pthread_rwlockattr_setkind_np(&attributes, Int32(PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP))
        let initialised = pthread_rwlock_init(lock, &attributes)
        pthread_rwlockattr_destroy(&attributes)
        var key = pthread_key_t()
        let keyed = pthread_key_create(&key, nil)
        precondition(initialised == 0 && keyed == 0, "cannot create the resize gate")
        depthKey = key
    }

    deinit {
        pthread_key_delete(depthKey)
        pthread_rwlock_destroy(lock)
        lock.deallocate()
    }

    /// How many shared holds the calling thread has.
    var depthOnCurrentThread: Int {
        Int(bitPattern: pthread_getspecific(depthKey))
    }

    /// True when the calling thread is inside a transaction of this gate.
    var isHeldByCurrentThread: Bool { depthOnCurrentThread > 0 }

    /// Runs `body` with the gate held shared. Re-entrant on one thread.
    func withShared<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        let depth = enterShared()
        defer { leaveShared(depth) }
        return try body()
    }

    /// Takes a shared hold, locking only for the thread's outermost one.
    ///
    /// - Returns: the thread's holds before this one (0 for the outermost),
    ///   to hand back to `leaveShared`.
    @inline(__always)
    func enterShared() -> Int {
        let depth = depthOnCurrentThread
        if depth == 0 { pthread_rwlock_rdlock(lock) }
        pthread_setspecific(depthKey, UnsafeRawPointer(bitPattern: depth + 1))
        return depth
    }

    /// Ends the hold `enterShared` returned `depth` for, on the same thread.
    @inline(__always)
    func leaveShared(_ depth: Int) {
        pthread_setspecific(depthKey, UnsafeRawPointer(bitPattern: depth))
        if depth == 0 { pthread_rwlock_unlock(lock) }
    }

    /// Runs `body` with no transaction live in this process.
    ///
    /// - Precondition: the calling thread holds no shared hold, which would
    ///   deadlock.
    func withExclusive<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        precondition(!isHeldByCurrentThread, "a resize from inside a transaction would deadlock")
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body()
    }
}
