import Glibc

/// The pthread mutex under `Locked` and `LockedCondition`: an
/// error-checking one (`PTHREAD_MUTEX_ERRORCHECK`) whose every result is
/// checked, so a thread that locks it again while holding it (a body
/// calling back into `withLock`) stops the process with a message, where a
/// plain mutex would hang it for ever.
///
/// pthread rather than `Synchronization.Mutex`: on Linux that locks with
/// futexes inside the standard library, which is not built with
/// ThreadSanitizer, so TSan cannot see its happens-before edges and reports
/// races that are not there. TSan intercepts `pthread_mutex_lock`, so these
/// locks keep the concurrency tests (`swift test --sanitize=thread`)
/// meaningful.
final class CheckedMutex {
    /// Allocated once, never moved, destroyed in deinit.
    let pointer: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        pointer = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        Self.check(pthread_mutexattr_init(&attributes), "pthread_mutexattr_init")
        Self.check(pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ERRORCHECK)), "pthread_mutexattr_settype")
        Self.check(pthread_mutex_init(pointer, &attributes), "pthread_mutex_init")
        Self.check(pthread_mutexattr_destroy(&attributes), "pthread_mutexattr_destroy")
    }

    deinit {
        Self.check(pthread_mutex_destroy(pointer), "pthread_mutex_destroy")
        pointer.deallocate()
    }

    func lock() {
        Self.check(pthread_mutex_lock(pointer), "pthread_mutex_lock (a withLock inside withLock on the same lock?)")
    }

    func unlock() {
        Self.check(pthread_mutex_unlock(pointer), "pthread_mutex_unlock")
    }

    /// Stops the process when a pthread call failed: each failure here is a
    /// misuse of the lock or a corrupted one, never a state to go on from.
    static func check(_ result: Int32, _ call: StaticString) {
        precondition(result == 0, "\(call) failed: \(String(cString: strerror(result)))")
    }
}
