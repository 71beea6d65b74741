/// A value guarded by a mutex: the one lock of ShareLog's libraries. Its
/// mutex is a `CheckedMutex` (why pthread, and why every result is checked,
/// is said there); a `withLock` inside `withLock` on the same lock stops
/// the process with a message instead of hanging it.
package final class Locked<Value> {
    private let mutex = CheckedMutex()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value. Not re-entrant.
    package func withLock<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
        mutex.lock()
        defer { mutex.unlock() }
        return try body(&value)
    }
}

// @unchecked Sendable: `value` is only touched inside `withLock`, under
// `mutex`, which lives as long as the instance. Only a `Sendable` value may
// be shared so: the lock orders the accesses, but a value that is not
// `Sendable` may share state with references outside the lock.
extension Locked: @unchecked Sendable where Value: Sendable {}
