import ShareLog

/// Runs `body` while a task relays the store's commits, by any process
/// (`ShareStore.commits()`), to every session of `context`
/// (`SessionContext.wakeAll`), so a session in follow mode sends new events
/// as soon as they commit, with no polling interval. The task runs on a
/// thread of its own (`CommitWatchExecutor`), not on Swift's cooperative
/// pool, which blocking work may hold. Sessions also look at the log's end
/// on each heartbeat tick, which bounds what a lost commit signal costs.
func withCommitWatch<R>(
    store: ShareStore, context: SessionContext, when enabled: Bool, _ body: () throws(SyncFailure) -> R
) throws(SyncFailure) -> R {
    guard enabled else { return try body() }
    let commits: AsyncStream<UInt64>
    do { commits = try store.commits() } catch { throw .store(error) }
    let relay = Task.detached(executorPreference: CommitWatchExecutor.shared) {
        for await _ in commits { context.wakeAll() }
    }
    defer { relay.cancel() }
    return try body()
}
