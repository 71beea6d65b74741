import Synchronization

/// A value that is not `Sendable`, on its way to another thread: it sits
/// in an isolation region of its own (SE-0414) until `take()` hands it,
/// whole, to the thread that takes it.
///
/// It is made only from a `sending` value, so the giver keeps no reference
/// into it, and `take()` returns the value `sending`, so the taker gets it
/// alone; until then, `withValue` lends it to its holder, and the compiler
/// lets nothing of it escape the loan nor anything outside in. So the box
/// itself is `Sendable` without any claim that the compiler does not
/// check: it can be captured by a `Thread`'s `@Sendable` closure, or be
/// held where a value must wait in a region of its own (an accepted
/// connection, in the server's vestibule, until its session thread takes
/// it).
///
/// The lock is `Synchronization.Mutex` for its `sending` signatures, which
/// are what the compiler checks; it is never contended: one thread at a
/// time holds the box, and the thread that takes it was started by, or
/// otherwise synchronised with, the one that made it.
package final class Handoff<Value>: Sendable {
    /// The value; nil once taken.
    private let slot: Mutex<Value?>

    /// Holds `value`, which the caller no longer references.
    package init(_ value: consuming sending Value) {
        slot = Mutex(value)
    }

    /// Takes the value out, for the calling thread alone. Once: a second
    /// `take`, or a `withValue` after it, stops the process.
    package func take() -> sending Value {
        slot.withLock { slot -> sending Value in
            guard let value = slot.take() else { preconditionFailure("Handoff.take() called twice") }
            return value
        }
    }

    /// Lends the value to `body`, which may change it, and returns what
    /// `body` returns; neither may share anything with the value.
    package func withValue<R, Failure: Error>(_ body: (inout sending Value) throws(Failure) -> sending R) throws(Failure) -> sending R {
        try slot.withLock { (slot: inout sending Value?) throws(Failure) -> sending R in
            guard slot != nil else { preconditionFailure("Handoff.withValue(_:) after take()") }
            return try body(&slot!)
        }
    }
}
