import Glibc

/// A value guarded by a `pthread_mutex_t`: the one lock of ShareLog's
/// libraries.
///
/// Why not `Synchronization.Mutex`: on Linux it locks with futexes inside
/// the standard library, which is not built with ThreadSanitizer, so TSan
/// cannot see its happens-before edges and reports races that are not
/// there. TSan intercepts `pthread_mutex_lock`, so this lock keeps the
/// concurrency tests (`swift test --sanitize=thread`) meaningful. Why not
/// `NSLock`: it ignores the mutex's results, and Foundation is not ours to
/// ask every layer to import.
///
/// The mutex is an error-checking one (`PTHREAD_MUTEX_ERRORCHECK`), and
/// every result is checked: a thread that locks it again while holding it
/// (the body calling back into `withLock`) stops the process with a
/// message, where a plain mutex would hang it for ever.
package final class Locked<Value>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only touched inside `withLock`, under
    // `mutex`; the mutex is allocated once, never moved, and destroyed in
    // deinit when no thread can hold it.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    package init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        Self.check(pthread_mutexattr_init(&attributes), "pthread_mutexattr_init")
        Self.check(pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ERRORCHECK)), "pthread_mutexattr_settype")
        Self.check(pthread_mutex_init(mutex, &attributes), "pthread_mutex_init")
        Self.check(pthread_mutexattr_destroy(&attributes), "pthread_mutexattr_destroy")
    }

    deinit {
        Self.check(pthread_mutex_destroy(mutex), "pthread_mutex_destroy")
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value. Not re-entrant: a
    /// `withLock` inside `body` on the same lock stops the process.
    package func withLock<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
        Self.check(pthread_mutex_lock(mutex), "pthread_mutex_lock (a withLock inside withLock on the same lock?)")
        defer { Self.check(pthread_mutex_unlock(mutex), "pthread_mutex_unlock") }
        return try body(&value)
    }

    /// Stops the process when a pthread call failed: each failure here is a
    /// misuse of the lock or a corrupted mutex, never a state to go on from.
    private static func check(_ result: Int32, _ call: StaticString) {
        precondition(result == 0, "\(call) failed: \(String(cString: strerror(result)))")
    }
}
