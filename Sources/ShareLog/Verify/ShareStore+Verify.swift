import LMDB

extension ShareStore {
    /// Folds the log, in one snapshot, by the projection rules and compares
    /// the result with every stored derived database and counter.
    ///
    /// Reports each difference, each damaged key, each log entry that does
    /// not decode (with its sequence) and each gap in the log positions.
    /// A damaged store gets a report, never a trap.
    ///
    /// **Privacy: no card leaves the store's file.** The fold is held in
    /// memory and holds no card bytes: a share's fold refers to its card by
    /// the log position of the log entry that carries it, and the compare
    /// reads the card from that entry, in the same snapshot, only for a
    /// live share. Nothing is written anywhere: no scratch store, no
    /// temporary file, so a crash leaves nothing behind. (Cards pass
    /// through this process's memory as they do for `fetch`; swap and core
    /// dumps are outside the guarantee, see docs/ENGINE.md.)
    ///
    /// **Bounded memory.** The fold is kept in a window of record names
    /// (`NameWindow`), reserved once and reused: for each logged creation
    /// and expiration of the window's names, the name and the log position,
    /// 24 bytes, 262,144 of them in 6 MiB, whatever the store's size; the
    /// events' facts are read again from the log, in place, when each name
    /// is folded and compared. `eventIndex` needs no window: each log
    /// entry's id is looked up in it, and only ids whose entry does not
    /// name that log entry (none, in a consistent store) are kept, at most
    /// 19,660 in 1 MiB. A store with more events than one window reads the
    /// log once per window: a million events take four passes. The first
    /// pass checks every entry (its checksum and layout, without copying
    /// its card); the later ones only read each entry's name in place.
    /// Why not the alternatives: a scratch store, even one without cards,
    /// is a file outside the store that a crash leaves behind; a nested
    /// write transaction that is aborted holds the writer lock for the
    /// whole run, needs a writable store, and spills dirty pages into the
    /// file once they outgrow memory.
    ///
    /// One read transaction for the whole run: writers go on, but map
    /// growth waits for it and a compaction's scrub defers the pages it can
    /// still see. Cost: O(passes × log + derived entries × log n) time.
    ///
    /// - Parameters:
    ///   - windowSize: record names folded at a time, and suspect ids kept
    ///     (at least 1), at most what fits the budget; by default as many
    ///     as fit. Smaller windows mean more passes over the log.
    ///   - chunkSize: log entries read between two calls of `progress` (at
    ///     least 1).
    ///   - progress: called with the log entries read so far, counting
    ///     each pass, and at the end of each pass.
    @available(*, noasync, message: "use the async verify from async code")
    public func verify(
        windowSize: Int = .max, chunkSize: Int = 10_000, progress: ((Int) -> Void)? = nil
    ) throws(ShareLogError) -> VerificationReport {
        try verify(windowSize: windowSize, chunkSize: chunkSize, progress: progress, cancellation: nil)
    }

    /// `verify(windowSize:chunkSize:progress:)`, checking `cancellation`
    /// after each chunk (for the async form).
    func verify(
        windowSize: Int, chunkSize: Int, progress: ((Int) -> Void)?, cancellation: CancellationFlag?
    ) throws(ShareLogError) -> VerificationReport {
        var verifier = Verifier(schema: schema, windowSize: windowSize, chunkSize: chunkSize, progress: progress, cancellation: cancellation)
        try read { txn in try verifier.run(in: txn) }
        return verifier.report
    }
}
