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
    /// **Bounded memory.** The fold is kept in windows (`FoldWindow`), each
    /// reserved once and reused: at most 196,607 record names (a quarter
    /// over `windowSize` if that is fewer), each with its share's facts in
    /// 64 bytes, in 20 MiB, and twice as many event ids, at most 196,607, in
    /// 8 MiB, whatever the store's size; about 28 MiB in all (a revocation,
    /// a second creation or a TTL end before any creation adds a small box
    /// to its name). A store with more reads the log once per window: about
    /// max(shares / min(windowSize, 157,286), events / 157,286) + 1 passes. The first pass
    /// checks and decodes every entry; the later ones only read each
    /// entry's id and facts in place, about a tenth of a second per million
    /// entries (release build).
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
    ///   - windowSize: record names folded at a time (at least 1), at most
    ///     what fits the budget (157,286 after a shrink, 196,607 at most).
    ///   - chunkSize: log entries read between two calls of `progress` (at
    ///     least 1).
    ///   - progress: called with the log entries read so far, counting
    ///     each pass, and at the end of each pass.
    @available(*, noasync, message: "use the async verify from async code")
    public func verify(
        windowSize: Int = 150_000, chunkSize: Int = 10_000, progress: ((Int) -> Void)? = nil
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
