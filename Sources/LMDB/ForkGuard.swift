import Glibc
import Synchronization

/// Detects use of an environment in a process forked from the one that
/// opened it.
///
/// LMDB keeps the opener's pid in its reader slots and file locks, and does
/// not notice a fork: a child that reads or writes through an inherited
/// handle can corrupt the parent's reader table. A `pthread_atfork` child
/// handler bumps a generation counter; an environment remembers the
/// generation it was opened in and refuses every operation in another one.
/// The check is one relaxed atomic load, no system call.
enum ForkGuard {
    /// Incremented in every child process right after `fork()`.
    private static let generation = Atomic<Int>(0)

    /// Registers the handler once, on first use.
    private static let installed: Bool = {
        pthread_atfork(nil, nil) { ForkGuard.generation.add(1, ordering: .relaxed) } == 0
    }()

    /// The generation of this process; call when opening an environment.
    static func currentGeneration() -> Int {
        precondition(installed, "pthread_atfork failed; fork detection is unavailable")
        return generation.load(ordering: .relaxed)
    }

    /// True when `openedIn` is not this process's generation.
    @inline(__always)
    static func isForked(since openedIn: Int) -> Bool {
        generation.load(ordering: .relaxed) != openedIn
    }
}
