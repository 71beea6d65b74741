/// Closing an environment explicitly, as GRDB's `DatabaseReader.close()`
/// does, for when the moment matters: before the directory is reopened
/// with other options, moved or deleted, or before the process reports
/// that it is done with it.
///
/// Without `close()`, the environment closes when its last reference goes
/// (its deinit, the fallback): the writer thread runs what is queued, and
/// the handle closes once that thread lets go of it.
extension Environment {
    /// Closes the environment: refuses new work, lets the work already
    /// begun finish, then closes the LMDB handle. Idempotent; returns once
    /// the environment is closed, also when another thread's `close()` is
    /// doing it.
    ///
    /// In order:
    /// 1. Opens of the directory in this process wait from here until the
    ///    handle has closed, then open it anew (the registry); they never
    ///    get this instance again.
    /// 2. Every read, write, scrub or `database(_:)` begun from here throws
    ///    `LMDBError.closed`, having read or written nothing.
    /// 3. The writes already queued run and commit (or fail on their own),
    ///    and their callers are answered; then the writer thread exits.
    /// 4. Read transactions still live in this process run to their end;
    ///    then the idle ones are aborted and `mdb_env_close` releases the
    ///    files and the reader slot, and the directory is unlisted.
    ///
    /// After it, `info` says what it said at the close, `flags`, `path` and
    /// `maxKeySize` stay, and everything else throws `LMDBError.closed`.
    ///
    /// A second `Environment.open` of the directory returns this same
    /// instance, so this closes it for every holder of it. An owner that
    /// shares it with others closes with `release()` instead.
    ///
    /// - Precondition: not called inside a read or write of this
    ///   environment (it would wait for itself).
    @available(*, noasync, message: "close() waits for the writer; call it from a thread that may block")
    public func close() {
        precondition(!isInTransactionOnCurrentThread, "Environment.close() inside a transaction of the same environment would wait for itself")
        let closing = lifecycle.withLock { stage -> Bool in
            guard case .open = stage else { return false }
            stage = .closing
            return true
        }
        guard closing else {
            lifecycle.wait { stage -> Void? in
                if case .closed = stage { return () }
                return nil
            }
            return
        }
        EnvironmentRegistry.willClose(self)
        handle.refuseNewWork()
        // fork() copies no writer thread, so a child must not wait for one.
        if !handle.isForked { writer.shutdown() }
        handle.close()
        lifecycle.withLock { $0 = .closed }
    }

    /// Gives back one open of the environment (each `Environment.open`
    /// that returned it counts one) and closes it (`close()`) when that
    /// was the last; for an owner, such as `ShareStore`, that shares the
    /// environment of its directory with other owners in the process.
    ///
    /// With `closingIfLast: false` (an owner's deinit) it only gives the
    /// open back, leaving the last one to close it or its deinit.
    ///
    /// - Important: once per open. The opens are counted, not the owners,
    ///   so a second release of one open closes the environment under
    ///   another owner.
    @available(*, noasync, message: "release() may close, which waits for the writer")
    package func release(closingIfLast: Bool = true) {
        if EnvironmentRegistry.release(self, closingIfLast: closingIfLast) { close() }
    }

    /// True when called on the writer thread or inside a read of this
    /// environment, where closing it would wait for itself.
    package var isInTransactionOnCurrentThread: Bool {
        writer.isCurrentThread || handle.gate.isHeldByCurrentThread
    }

    /// True once `close()` has begun.
    package var isClosed: Bool { handle.isClosing }
}
