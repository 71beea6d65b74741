import Dispatch

/// The async forms of the operations that commit or read at length, for a
/// server built on Swift concurrency: none blocks a thread of the
/// cooperative pool on the disk or on LMDB's write lock. The contracts are
/// those of the blocking forms.
///
/// - A single write (`apply`, and beside their blocking forms `create` and
///   `revoke`) is queued to the store's writer thread and suspends the
///   caller until its commit: no thread is parked per call. Cancelling the
///   calling task does not withdraw a write once queued: it commits whole,
///   or not at all, as it would have.
/// - A long operation (`sweep`, `compact`, `verify`) runs its blocking form
///   on a Dispatch thread. Cancelling the calling task stops it at its next
///   batch (a verification, at its next chunk of the log's scan; its
///   comparison of the derived databases after each scan runs to its end) with
///   `ShareLogError.cancelled`: every batch committed before stays, none is
///   cut in two, and running it again finishes the job.
///
/// Every form throws `ShareLogError` only, as the blocking forms do.
///
/// At `close()` (`ShareStore+Close.swift`): a single write queued before
/// it commits, and its task is resumed with the result, before `close()`
/// returns; one begun after it throws `ShareLogError.closed` without
/// reaching the writer. A long operation finishes the transaction it is in
/// and throws `closed` at its next one, its committed batches kept.
extension ShareStore {
    /// The async form of `apply(_:)`.
    @discardableResult
    public func apply(_ events: [Event]) async throws(ShareLogError) -> ApplyReport {
        try await write(foreignApplication(of: events, advancing: nil))
    }

    /// The async form of `apply(_:advancing:)`: the events and the cursor
    /// commit together, and the batch is durable once this returns.
    @discardableResult
    public func apply(_ events: [Event], advancing cursor: PeerCursor) async throws(ShareLogError) -> ApplyReport {
        try await write(foreignApplication(of: events, advancing: cursor))
    }

    /// The async form of `apply(_:resetting:)`, for the end of a snapshot.
    @discardableResult
    public func apply(_ events: [Event], resetting cursor: PeerCursor) async throws(ShareLogError) -> ApplyReport {
        try await write(foreignApplication(of: events, advancing: cursor, resetting: true))
    }

    /// The async form of `sweep(at:batchSize:progress:)`; `progress` runs on
    /// the Dispatch thread, after each committed batch.
    ///
    /// - Throws: `ShareLogError.cancelled` when the task is cancelled, after the
    ///   batch in progress commits.
    @discardableResult
    public func sweep(
        at time: Timestamp? = nil, batchSize: Int = 1000, progress: (@Sendable (SweepReport) -> Void)? = nil
    ) async throws(ShareLogError) -> SweepReport {
        try await Self.cancellable { flag throws(ShareLogError) in try self.sweep(at: time, batchSize: batchSize, progress: progress, cancellation: flag) }
    }

    /// The async form of `compact(batchSize:progress:)`; `progress` runs on
    /// the Dispatch thread, after each committed batch.
    ///
    /// - Throws: `ShareLogError.cancelled` when the task is cancelled, after the
    ///   batch in progress commits (and then without the scrub: the cards
    ///   of the batches that committed are out of the log, but their old
    ///   bytes stay in free pages until a compaction runs to its end).
    @discardableResult
    public func compact(
        batchSize: Int = 1000, progress: (@Sendable (CompactionReport) -> Void)? = nil
    ) async throws(ShareLogError) -> CompactionReport {
        try await Self.cancellable { flag throws(ShareLogError) in try self.compact(batchSize: batchSize, progress: progress, cancellation: flag) }
    }

    /// The async form of `verify(windowSize:chunkSize:progress:)`; `progress`
    /// runs on the Dispatch thread.
    ///
    /// - Throws: `ShareLogError.cancelled` when the task is cancelled, at the next
    ///   chunk of the log read.
    public func verify(
        windowSize: Int = .max, chunkSize: Int = 10_000, progress: (@Sendable (Int) -> Void)? = nil
    ) async throws(ShareLogError) -> VerificationReport {
        try await Self.cancellable { flag throws(ShareLogError) in
            try self.verify(windowSize: windowSize, chunkSize: chunkSize, progress: progress, cancellation: flag)
        }
    }

    /// Runs `body` on a Dispatch thread and resumes the caller with its
    /// result; cancelling the caller raises the flag `body` checks.
    private static func cancellable<R: Sendable>(
        _ body: @escaping @Sendable (CancellationFlag) throws(ShareLogError) -> R
    ) async throws(ShareLogError) -> R {
        let flag = CancellationFlag()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<R, ShareLogError>, Never>) in
                DispatchQueue.global(qos: .userInitiated).async {
                    continuation.resume(returning: Result { () throws(ShareLogError) in try body(flag) })
                }
            }
        } onCancel: {
            flag.raise()
        }
        return try result.get()
    }
}
