import ShareLog

/// Runs `body` while a task relays the store's commits to every session of
/// `context` (`SessionContext.wakeAll`), so a session in follow mode sends
/// new events as soon as they commit, with no polling interval. Commits by
/// other processes are not announced by `ShareStore.commits()`; sessions
/// also look at the log's end on each heartbeat tick for those.
func withCommitWatch<R>(
    store: ShareStore, context: SessionContext, when enabled: Bool, _ body: () throws(SyncFailure) -> R
) throws(SyncFailure) -> R {
    guard enabled else { return try body() }
    let commits: AsyncStream<UInt64>
    do { commits = try store.commits() } catch let error as ShareLogError { throw .store(error) } catch { throw .store(.corruptMeta("log")) }
    let relay = Task.detached {
        for await _ in commits { context.wakeAll() }
    }
    defer { relay.cancel() }
    return try body()
}
