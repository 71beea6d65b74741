import Glibc

/// A value guarded by a `pthread_mutex_t`.
///
/// Why not `Synchronization.Mutex`: on Linux it locks with futexes inside
/// the standard library, which is not built with ThreadSanitizer, so TSan
/// cannot see its happens-before edges and reports races that are not
/// there. TSan intercepts `pthread_mutex_lock`, so this lock keeps the
/// concurrency tests (`swift test --sanitize=thread`) meaningful.
///
/// `package`: the engine (`ShareLog`) guards its own shared state with it
/// too, for the same reason; no user of the library sees it.
package final class Locked<Value>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only touched inside `withLock`, under
    // `mutex`; the mutex is allocated once, never moved, and destroyed in
    // deinit when no thread can hold it.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    package init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        precondition(pthread_mutex_init(mutex, nil) == 0, "pthread_mutex_init failed")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value. Not re-entrant.
    package func withLock<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
