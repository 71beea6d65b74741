import LMDB
import LMDBScrub

/// The store's only ways into its LMDB environment. Each passes a
/// `ShareLogError` from its body through unchanged and turns a storage
/// failure (`LMDBError`: a full disk, a full reader table, a damaged file)
/// into `ShareLogError.storage` with the LMDB error as its cause, so a
/// caller of ShareStore handles one error type.
extension ShareStore {
    func read<R>(_ body: (borrowing ReadTransaction) throws -> R) throws -> R {
        try Self.storage { try environment.read(body) }
    }

    func write<R: Sendable>(_ body: @escaping @Sendable (borrowing WriteTransaction) throws -> R) throws -> R {
        let result = try Self.storage { try environment.write(body) }
        announceCommit()
        return result
    }

    func write<R: Sendable>(_ body: @escaping @Sendable (borrowing WriteTransaction) throws -> R) async throws -> R {
        let result: R
        do { result = try await environment.write(body) } catch let error as LMDBError { throw ShareLogError.storage(error) }
        announceCommit()
        return result
    }

    /// Rings the commit signal for every other process, then tells this
    /// instance's `commits()` subscribers the last log position, when there
    /// are any. The write has committed, so a failure to read the position
    /// must not turn its success into an error: that announcement is
    /// skipped, and the next commit's covers it.
    private func announceCommit() {
        commitSignal?.ring()
        guard commitFeed.isWatched, let position = try? read({ txn in try log.lastPosition(in: txn) }) else { return }
        commitFeed.publish(position)
    }

    /// `Environment.scrub()`, for compaction.
    func scrub() throws -> ScrubReport {
        try Self.storage { try environment.scrub() }
    }

    /// Runs `body`, turning an `LMDBError` into `ShareLogError.storage`.
    static func storage<R>(_ body: () throws -> R) throws -> R {
        do { return try body() } catch let error as LMDBError { throw ShareLogError.storage(error) }
    }
}
