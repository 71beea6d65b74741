import Glibc

/// A value guarded by a mutex, with a condition to wait on until the value
/// is as a waiter needs it: `Locked` for a thread that must wait for
/// another to change the value, instead of polling it.
///
/// Every `withLock` wakes every waiter to look again, so a waiter never
/// misses a change. A wait may be bounded by a deadline on
/// `ContinuousClock`; the condition sleeps on `CLOCK_MONOTONIC`, so a jump
/// of the wall clock neither ends a wait early nor stretches it. The mutex
/// is a `CheckedMutex`; the condition's results are checked the same way.
///
/// `package`: the registry waits on it for a close to finish, and the
/// engine (`ShareLog`) waits on it for a store's operations to end.
package final class LockedCondition<Value> {
    private let mutex = CheckedMutex()
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var value: Value

    package init(_ value: Value) {
        self.value = value
        condition = .allocate(capacity: 1)
        var attributes = pthread_condattr_t()
        CheckedMutex.check(pthread_condattr_init(&attributes), "pthread_condattr_init")
        CheckedMutex.check(pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC), "pthread_condattr_setclock")
        CheckedMutex.check(pthread_cond_init(condition, &attributes), "pthread_cond_init")
        CheckedMutex.check(pthread_condattr_destroy(&attributes), "pthread_condattr_destroy")
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
            broadcast()
            mutex.unlock()
        }
        return try body(&value)
    }

    /// Runs `body` with exclusive access to the value, now and again after
    /// each change, until it returns a result, and returns that; it may
    /// change the value when it does (waking the other waiters), and must
    /// leave it as it was when it returns nil (that change would wake
    /// nobody). Sleeps on the condition in between, without the lock. Waits
    /// for as long as it takes: no timeout. Not re-entrant.
    package func wait<R, E: Error>(until body: (inout Value) throws(E) -> R?) throws(E) -> R {
        // Without a deadline, only a result ends the wait.
        try waitOrNil(until: body, deadline: nil)!
    }

    /// `wait(until:)` bounded by `deadline`: the result of `body`, or nil
    /// when `deadline` passed before `body` returned one. `body` runs at
    /// least once, however early the deadline, and once more at each wake,
    /// the deadline's included. Never returns nil before `deadline`: the
    /// time left rounds up to whole nanoseconds (`nanosecondsToWait`).
    /// Not re-entrant.
    package func wait<R, E: Error>(until body: (inout Value) throws(E) -> R?, deadline: ContinuousClock.Instant) throws(E) -> R? {
        try waitOrNil(until: body, deadline: deadline)
    }

    /// Both waits: nil only once `deadline`, if any, has passed.
    private func waitOrNil<R, E: Error>(until body: (inout Value) throws(E) -> R?, deadline: ContinuousClock.Instant?) throws(E) -> R? {
        mutex.lock()
        defer { mutex.unlock() }
        while true {
            if let result = try body(&value) {
                broadcast()
                return result
            }
            guard let deadline else {
                CheckedMutex.check(pthread_cond_wait(condition, mutex.pointer), "pthread_cond_wait")
                continue
            }
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return nil }
            var until = Self.monotonicInstant(after: left)
            let result = pthread_cond_timedwait(condition, mutex.pointer, &until)
            // ETIMEDOUT is a wake like any other: the loop looks at the
            // value once more, then finds the deadline passed.
            if result != ETIMEDOUT { CheckedMutex.check(result, "pthread_cond_timedwait") }
        }
    }

    private func broadcast() {
        CheckedMutex.check(pthread_cond_broadcast(condition), "pthread_cond_broadcast")
    }

    /// `CLOCK_MONOTONIC`'s reading `left` from now. The deadline goes over
    /// as a duration, not as an instant: `ContinuousClock` is
    /// `CLOCK_BOOTTIME` on Linux, which a condition cannot sleep on, and the
    /// two clocks run at the same rate while the machine is awake. No
    /// overflow: `nanosecondsToWait` saturates at `Int64.max`, under 10¹⁰
    /// seconds.
    private static func monotonicInstant(after left: Duration) -> timespec {
        var now = timespec()
        CheckedMutex.check(clock_gettime(CLOCK_MONOTONIC, &now) == 0 ? 0 : errno, "clock_gettime(CLOCK_MONOTONIC)")
        let wait = left.nanosecondsToWait
        let nanoseconds = now.tv_nsec + Int(wait % 1_000_000_000)
        return timespec(tv_sec: now.tv_sec + Int(wait / 1_000_000_000) + nanoseconds / 1_000_000_000, tv_nsec: nanoseconds % 1_000_000_000)
    }
}

// @unchecked Sendable: `value` is only touched under `mutex` (inside
// `withLock` and `wait`); the mutex and the condition are allocated once,
// never moved, and destroyed in deinit, when no thread can hold or wait on
// them. Only a `Sendable` value may be shared so (as for `Locked`).
extension LockedCondition: @unchecked Sendable where Value: Sendable {}
