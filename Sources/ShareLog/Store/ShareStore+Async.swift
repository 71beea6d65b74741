import Dispatch

/// The async forms of the operations that commit or read at length (the
/// async `create(vCard:ttl:)`, which needs no thread of its own, is beside
/// its blocking form). Each here runs its blocking form on a Dispatch thread
/// and suspends the caller until it returns, so a server built on Swift concurrency never blocks a
/// thread of the cooperative pool on the disk or on LMDB's write lock. The
/// contracts are those of the blocking forms; cancelling the calling task
/// does not stop an operation once it has started (each batch commits
/// whole, and what committed stays).
extension ShareStore {
    /// The async form of `apply(_:)`.
    public func apply(_ events: [Event]) async throws -> ApplyReport {
        try await Self.offCooperativePool { try self.apply(events) }
    }

    /// The async form of `apply(_:advancing:)`: the events and the cursor
    /// commit together, and the batch is durable once this returns.
    public func apply(_ events: [Event], advancing cursor: PeerCursor) async throws -> ApplyReport {
        try await Self.offCooperativePool { try self.apply(events, advancing: cursor) }
    }

    /// The async form of `apply(_:resetting:)`, for the end of a snapshot.
    public func apply(_ events: [Event], resetting cursor: PeerCursor) async throws -> ApplyReport {
        try await Self.offCooperativePool { try self.apply(events, resetting: cursor) }
    }

    /// The async form of `revoke(_:)`.
    public func revoke(_ name: RecordName) async throws -> ShareExpired {
        try await Self.offCooperativePool { try self.revoke(name) }
    }

    /// The async form of `create(vCards:ttl:)`.
    public func create(vCards: [[UInt8]], ttl: Duration = ShareStore.defaultTTL) async throws -> [CreatedShare] {
        try await Self.offCooperativePool { try self.create(vCards: vCards, ttl: ttl) }
    }

    /// The async form of `sweep(at:batchSize:progress:)`; `progress` runs on
    /// the Dispatch thread, after each committed batch.
    @discardableResult
    public func sweep(
        at time: Timestamp? = nil, batchSize: Int = 1000, progress: (@Sendable (SweepReport) -> Void)? = nil
    ) async throws -> SweepReport {
        try await Self.offCooperativePool { try self.sweep(at: time, batchSize: batchSize, progress: progress) }
    }

    /// The async form of `compact(batchSize:progress:)`; `progress` runs on
    /// the Dispatch thread, after each committed batch.
    @discardableResult
    public func compact(
        batchSize: Int = 1000, progress: (@Sendable (CompactionReport) -> Void)? = nil
    ) async throws -> CompactionReport {
        try await Self.offCooperativePool { try self.compact(batchSize: batchSize, progress: progress) }
    }

    /// The async form of `verify(windowSize:chunkSize:progress:)`; `progress`
    /// runs on the Dispatch thread.
    public func verify(
        windowSize: Int = 150_000, chunkSize: Int = 10_000, progress: (@Sendable (Int) -> Void)? = nil
    ) async throws -> VerificationReport {
        try await Self.offCooperativePool { try self.verify(windowSize: windowSize, chunkSize: chunkSize, progress: progress) }
    }

    /// Runs `body` on a Dispatch thread and resumes the caller with its result.
    private static func offCooperativePool<R: Sendable>(_ body: @escaping @Sendable () throws -> R) async throws -> R {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async { continuation.resume(with: Result { try body() }) }
        }
    }
}
