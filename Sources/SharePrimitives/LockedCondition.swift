import Glibc

/// A value guarded by a mutex, with a condition to wait on until the value
/// is as a waiter needs it: `Locked` for a thread that must wait for
/// another to change the value, instead of polling it.
///
/// Every `withLock` wakes every waiter to look again, so a waiter never
/// misses a change. The mutex is a `CheckedMutex`; the condition's results
/// are checked the same way.
///
/// `package`: the registry waits on it for a close to finish, and the
/// engine (`ShareLog`) waits on it for a store's operations to end.
package final class LockedCondition<Value>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only touched under `mutex` (inside
    // `withLock` and `wait`); the mutex and the condition are allocated
    // once, never moved, and destroyed in deinit, when no thread can hold
    // or wait on them.
    private let mutex = CheckedMutex()
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var value: Value

    package init(_ value: Value) {
        self.value = value
        condition = .allocate(capacity: 1)
        CheckedMutex.check(pthread_cond_init(condition, nil), "pthread_cond_init")
    }

    deinit {
        CheckedMutex.check(pthread_cond_destroy(condition), "pthread_cond_destroy")
        condition.deallocate()
    }

    /// Runs `body` with exclusive access to the value, then wakes every
    /// waiter. Not re-entrant.
    package func withLock<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
        mutex.lock()
        defer {
            CheckedMutex.check(pthread_cond_broadcast(condition), "pthread_cond_broadcast")
            mutex.unlock()
        }
        return try body(&value)
    }

    /// Runs `body` with exclusive access to the value, now and again after
    /// each change, until it returns a result, and returns that; it may
    /// change the value when it does (waking the other waiters). Sleeps on
    /// the condition in between, without the lock. Waits for as long as it
    /// takes: no timeout. Not re-entrant.
    package func wait<R, E: Error>(until body: (inout Value) throws(E) -> R?) throws(E) -> R {
        mutex.lock()
        defer { mutex.unlock() }
        while true {
            if let result = try body(&value) {
                CheckedMutex.check(pthread_cond_broadcast(condition), "pthread_cond_broadcast")
                return result
            }
            CheckedMutex.check(pthread_cond_wait(condition, mutex.pointer), "pthread_cond_wait")
        }
    }
}
