import LMDB
import Synchronization
import SharePrimitives

/// One `ShareStore` instance's operations in progress, and whether it is
/// closed: what lets `ShareStore.close()` refuse new operations and wait
/// for the ones begun.
///
/// An operation here is one use of the environment (a read, a write and
/// its announcement, a scrub) or one call that must not overlap the close
/// (`commits()`, `renewIdentityAlone()`). A long
/// operation (a sweep, a verification) is a run of them: the close waits
/// for the one in progress, and the next throws `closed`.
///
/// Thread-safe, and cheap on the hot path: beginning and ending an
/// operation is one atomic add and one atomic load, with no lock, so that
/// reads from many threads do not contend here. Only a close, and an
/// operation that ends while one waits, take the condition's lock
/// (`LockedCondition`).
final class StoreLifetime: Sendable {
    private enum Stage: UInt8 {
        case open, closing, closed
    }

    /// Operations begun and not yet ended, counting for a moment one that
    /// began after the close did and is backing out.
    private let running = Atomic<Int>(0)
    /// A `Stage`'s raw value.
    private let stage = Atomic<UInt8>(Stage.open.rawValue)
    /// What a close waits on: for `running` to reach zero (the first
    /// closer) or for `stage` to be closed (any later one).
    private let changes = LockedCondition(())
    private let path: String

    init(path: String) {
        self.path = path
    }

    /// True once `close` has begun.
    var isClosed: Bool { stage.load(ordering: .sequentiallyConsistent) != Stage.open.rawValue }

    /// Begins an operation; pair it with `end()`.
    ///
    /// The count goes up before the stage is read, and the close sets the
    /// stage before it reads the count (both sequentially consistent): so
    /// either this sees the close and backs out, or the close sees this and
    /// waits for it.
    ///
    /// - Throws: `ShareLogError.closed` once the close has begun.
    func begin() throws(ShareLogError) {
        running.add(1, ordering: .sequentiallyConsistent)
        guard stage.load(ordering: .sequentiallyConsistent) == Stage.open.rawValue else {
            end()
            throw ShareLogError.closed(path: path)
        }
    }

    /// Ends an operation `begin()` began; the last one to end while a close
    /// waits wakes it.
    func end() {
        let left = running.subtract(1, ordering: .sequentiallyConsistent).newValue
        if left == 0, isClosed { changes.withLock { _ in } }
    }

    /// Runs `body` as one operation.
    ///
    /// - Throws: `ShareLogError.closed` once the close has begun, without
    ///   running `body`; or what `body` throws.
    func run<R>(_ body: () throws(ShareLogError) -> R) throws(ShareLogError) -> R {
        try begin()
        defer { end() }
        return try body()
    }

    /// Refuses new operations, then waits until the ones begun have ended.
    ///
    /// - Returns: true for the first caller, who goes on to close the store
    ///   and then calls `didClose()`; false for a later one, once the first
    ///   has called it.
    func beginClose() -> Bool {
        let first = stage.compareExchange(
            expected: Stage.open.rawValue, desired: Stage.closing.rawValue, ordering: .sequentiallyConsistent
        ).exchanged
        changes.wait { _ -> Void? in
            if first { return running.load(ordering: .sequentiallyConsistent) == 0 ? () : nil }
            return stage.load(ordering: .sequentiallyConsistent) == Stage.closed.rawValue ? () : nil
        }
        return first
    }

    /// Marks the close finished, releasing the callers `beginClose` holds.
    func didClose() {
        changes.withLock { _ in stage.store(Stage.closed.rawValue, ordering: .sequentiallyConsistent) }
    }
}
