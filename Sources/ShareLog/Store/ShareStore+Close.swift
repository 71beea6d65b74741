import Foundation
import LMDB

/// Closing a store explicitly, as GRDB's `DatabaseReader.close()` does, for
/// when the moment matters: at the end of a command or a server, before
/// the directory is reopened with other options (read-only, say), moved,
/// copied or deleted, or before an operator's `renew-identity` in another
/// process must find no writer left (docs/EMBEDDING.md "Lifetimes").
///
/// Without `close()` the last reference going is the fallback: the feeds
/// end, the watcher stops, and the environment closes when nothing holds
/// it any more, which may be later than the caller thinks (a task still
/// holding the store, a closure captured somewhere).
extension ShareStore {
    /// Closes this store: refuses new operations, lets the ones begun
    /// finish, ends what it started, and closes the LMDB environment if no
    /// other open instance in this process shares it. Idempotent; returns
    /// once this instance is closed, also when another thread's `close()`
    /// is doing it.
    ///
    /// What happens to each kind of use:
    /// - **Operations begun from here** (every read, write, `commits()`,
    ///   `stats()`, `raiseHighWater`, `renewIdentityAlone()`, in any form)
    ///   throw `ShareLogError.closed`, having read or written nothing.
    /// - **Writes already queued or running** (`create`, `apply`, `revoke`,
    ///   a sweep's batch; sync or async) commit, or fail on their own,
    ///   before `close()` returns; each is whole or absent, never half
    ///   written. Their callers get their usual answers.
    /// - **Reads in progress** run to their end first.
    /// - **Long operations** (`sweep`, `compact`, `trim`, `verify`, sync or
    ///   async) are runs of transactions: the one in progress finishes,
    ///   and the next throws `closed`. Every batch committed before stays,
    ///   as after a cancellation; running the operation again on a reopened
    ///   store finishes the job.
    /// - **`commits()` streams** of this instance finish (after the last
    ///   commit `close()` waited for was offered), and the watcher thread
    ///   that served them stops.
    /// - **The commit signal's writer lock** (the shared `flock` on
    ///   `commit.signal` an open for writing holds) is given up, so
    ///   `renewIdentityAlone()` elsewhere no longer counts this instance.
    /// - **The environment**: this instance's open of it is given back
    ///   (`Environment.release()`); the last open instance in the process
    ///   closes it, so the directory can be opened again at once, with any
    ///   options. Other instances on the same directory go on working.
    ///
    /// `path`, `replicaID`, `epoch`, `options` and the open's reports stay
    /// readable.
    ///
    /// - Precondition: not called inside a read or write of this store's
    ///   environment on the same thread (it would wait for itself).
    @available(*, noasync, message: "use the async close from async code")
    public func close() {
        precondition(
            !environment.isInTransactionOnCurrentThread,
            "ShareStore.close() inside a transaction of the same store would wait for itself")
        guard lifetime.beginClose() else { return }
        commitWatcher.stop()
        commitFeed.finish()
        if !options.environment.readOnly { commitSignal?.releaseWriterLock() }
        environment.release()
        lifetime.didClose()
    }

    /// The async form of `close()`: suspends, instead of blocking a thread
    /// of the cooperative pool, while a thread of its own waits for the
    /// operations in progress and the writer. Same contract; not
    /// cancellable (a close, once begun, finishes).
    public func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let thread = Thread { [self] in
                close()
                continuation.resume()
            }
            thread.name = "sharelog-close"
            thread.start()
        }
    }

    /// True once `close()` has begun on this instance.
    public var isClosed: Bool { lifetime.isClosed }
}
