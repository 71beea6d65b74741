import ShareLog

/// The async forms of `SyncClient`: each runs on a thread of its own
/// (`SessionThread`), and cancelling the calling task stops it as
/// `SessionContext.stop()` does.
extension SyncClient {
    /// The async form of `run(_:store:context:progress:)`: one session.
    /// Cancelled, the session ends at its next step, as a stopped context
    /// ends it: what was acknowledged stays applied, and the summary of
    /// what was done is returned (a stop is not a failure).
    public static func run(
        _ request: SyncRequest, store: ShareStore, progress: (@Sendable (SyncSummary) -> Void)? = nil
    ) async throws(SyncFailure) -> SyncSummary {
        let context = SessionContext()
        return try await SessionThread.run("sharelog-sync", context: context) { () throws(SyncFailure) in
            try run(request, store: store, context: context, progress: progress)
        }
    }

    /// The async form of `follow(_:store:context:onSession:progress:)`:
    /// follows, reconnecting after failures, until the calling task is
    /// cancelled; then the session in progress ends cleanly and this
    /// returns.
    public static func follow(
        _ request: SyncRequest, store: ShareStore, onSession: @escaping @Sendable (Result<SyncSummary, SyncFailure>) -> Void,
        progress: (@Sendable (SyncSummary) -> Void)? = nil
    ) async {
        let context = SessionContext()
        await SessionThread.run("sharelog-follow", context: context) { () throws(Never) in
            follow(request, store: store, context: context, onSession: onSession, progress: progress)
        }
    }
}
