internal import CLMDB

extension EnvironmentHandle {
    /// Starts a read for `Environment.read`: checks for a fork, takes the
    /// gate shared, checks the handle is not closing, and renews an idle
    /// transaction or begins a new one.
    ///
    /// The close check is made under the gate: `close()` takes the gate
    /// exclusive before `mdb_env_close`, so a read that passed it runs to
    /// its end on an open handle, and one that did not throws
    /// `LMDBError.closed`.
    ///
    /// `MDB_MAP_RESIZED` (another process grew the map) is adopted and the
    /// start tried again, unless the thread is already inside a transaction
    /// of this environment, whose gate hold the adoption would wait for.
    ///
    /// - Returns: the live transaction; hand it to `finishRead` on the same
    ///   thread.
    @usableFromInline
    func startRead() throws(LMDBError) -> ReadLease {
        try ensureNotForked()
        while true {
            let depth = gate.enterShared()
            if isClosing {
                gate.leaveShared(depth)
                throw LMDBError(code: LMDBError.closed.code, context: path)
            }
            let (transaction, rc) = renewOrBeginRead()
            if rc == MDB_SUCCESS, let transaction {
                return ReadLease(transaction: transaction, environmentID: id, maxKeySize: maxKeySize, gateDepth: depth)
            }
            gate.leaveShared(depth)
            // A failed renew leaves its transaction reset, slot and all; a
            // failed begin leaves none.
            if rc == MDB_MAP_RESIZED && depth == 0 {
                if let transaction { keepOrAbort(transaction) }
                try adoptResizedMap()
                continue
            }
            if let transaction { mdb_txn_abort(transaction) }
            throw LMDBError(code: rc, context: "mdb_txn_\(transaction == nil ? "begin" : "renew")(read) in '\(path)'")
        }
    }

    /// Ends a read `startRead` started: resets its transaction and keeps it
    /// for the next read (or aborts it when enough are idle), then lets go
    /// of the gate.
    @usableFromInline
    func finishRead(_ lease: ReadLease) {
        mdb_txn_reset(lease.transaction)
        keepOrAbort(lease.transaction)
        gate.leaveShared(lease.gateDepth)
    }

    /// An idle transaction renewed, or a new one; on a full reader table it
    /// looks for an idle one again (another read may just have finished),
    /// then clears stale slots once and tries again.
    ///
    /// - Precondition: the caller holds `gate` shared.
    private func renewOrBeginRead() -> (OpaquePointer?, Int32) {
        if let renewed = renewIdleRead() { return renewed }
        var transaction: OpaquePointer?
        var rc = mdb_txn_begin(pointer, nil, UInt32(MDB_RDONLY), &transaction)
        if rc == MDB_READERS_FULL {
            if let renewed = renewIdleRead() { return renewed }
            if (try? clearStaleReaders()) ?? 0 > 0 {
                rc = mdb_txn_begin(pointer, nil, UInt32(MDB_RDONLY), &transaction)
            }
        }
        return (transaction, rc)
    }

    /// An idle transaction and what renewing it returned; nil when none is
    /// idle.
    ///
    /// One whose reader slot is no longer its own (`MDB_BAD_RSLOT`: the
    /// slot's pid is another's, or a snapshot is in it) is dropped without
    /// `mdb_txn_abort`, which would zero that slot under whoever holds it
    /// now, and the next idle one is tried. That happens only after this
    /// process lost liblmdb's POSIX locks on `lock.mdb` (any descriptor of
    /// it closed in this process drops them; docs/LMDB.md, "What the caller
    /// must not do") and another process reset the reader table. The
    /// dropped `MDB_txn` is leaked: no call frees it without touching the
    /// slot.
    private func renewIdleRead() -> (OpaquePointer, Int32)? {
        while let idle = idleReads.take() {
            let rc = mdb_txn_renew(idle)
            if rc != MDB_BAD_RSLOT { return (idle, rc) }
        }
        return nil
    }

    /// Pools a reset transaction, or aborts it (freeing its reader slot)
    /// when the pool is full.
    private func keepOrAbort(_ transaction: OpaquePointer) {
        if !idleReads.put(transaction) { mdb_txn_abort(transaction) }
    }
}
