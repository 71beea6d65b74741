import Glibc

/// The one thread that may use a value that is not `Sendable` (a sync
/// channel, a listener): the thread that made it, until another adopts it
/// (`adoptCurrent()`) when the value is handed over, `sending`, to it.
///
/// The compiler checks that the giver keeps no reference (`sending`,
/// `Handoff`); this checks, in debug builds, the other half of the
/// contract: that the receiving thread said it took the value over, and
/// that nothing reaches the value from a third thread. `check` is an
/// `assert`, compiled out of release builds.
package struct OwningThread: Sendable {
    /// The owner, as `pthread_self()` gave it.
    private var owner: pthread_t

    /// The calling thread owns the value.
    package init() {
        owner = pthread_self()
    }

    /// The calling thread becomes the owner: call it on the receiving
    /// thread, once the value was handed to it and before it uses it.
    package mutating func adoptCurrent() {
        owner = pthread_self()
    }

    /// Whether the calling thread is the owner.
    package var isCurrent: Bool {
        pthread_equal(owner, pthread_self()) != 0
    }

    /// Stops a debug build when the calling thread is not the owner;
    /// nothing in a release build. `what` names the value, for the message.
    package func check(_ what: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) {
        assert(isCurrent, "\(what()) is used by a thread that does not own it: hand it over with `sending` and adopt it there", file: file, line: line)
    }
}
