import LMDB
import LMDBScrub

/// The store's only ways into its LMDB environment, and the boundary
/// where ShareStore's one error type is made. Each is
/// `throws(ShareLogError)`: it passes a `ShareLogError` from its body
/// through unchanged and turns a storage failure (`LMDBError`: a full disk,
/// a full reader table, a damaged file) into `ShareLogError.storage` with
/// the LMDB error as its cause, so a caller of ShareStore handles one error
/// type, and no other error is ever relabelled as one of its cases.
///
/// The bodies stay untyped `throws` because LMDB's `read` and `write` take
/// untyped bodies and rethrow their errors untyped; the store's interior
/// throws only `ShareLogError` and `LMDBError` (`engineError(_:)`).
///
/// Each is one operation of the store's `lifetime`: after `close()` began
/// it throws `ShareLogError.closed` without touching the environment, and
/// `close()` waits for the ones begun (a write's commit included).
extension ShareStore {
    func read<R>(_ body: (borrowing ReadTransaction) throws -> R) throws(ShareLogError) -> R {
        try lifetime.run { () throws(ShareLogError) in try Self.storage { try environment.read(body) } }
    }

    func write<R: Sendable>(_ body: @escaping @Sendable (borrowing WriteTransaction) throws -> R) throws(ShareLogError) -> R {
        try lifetime.begin()
        defer { lifetime.end() }
        let result = try Self.storage { try environment.write(body) }
        announceCommit()
        return result
    }

    func write<R: Sendable>(_ body: @escaping @Sendable (borrowing WriteTransaction) throws -> R) async throws(ShareLogError) -> R {
        try lifetime.begin()
        defer { lifetime.end() }
        let result: R
        do { result = try await environment.write(body) } catch { throw Self.engineError(error) }
        announceCommit()
        return result
    }

    /// Rings the commit signal for every other process, then tells this
    /// instance's `commits()` subscribers the last log position, when there
    /// are any. The write has committed, so a failure to read the position
    /// must not turn its success into an error: that announcement is
    /// skipped, and the next commit's covers it.
    ///
    /// - Precondition: inside the write's operation, so the read is one of
    ///   the environment's even while `close()` waits.
    private func announceCommit() {
        commitSignal?.ring()
        guard commitFeed.isWatched,
              let position = try? Self.storage({ try environment.read { txn in try log.lastPosition(in: txn) } })
        else { return }
        commitFeed.publish(position)
    }

    /// `Environment.scrub()`, for compaction.
    func scrub() throws(ShareLogError) -> ScrubReport {
        try lifetime.run { () throws(ShareLogError) in try Self.storage { try environment.scrub() } }
    }

    /// `Environment.copyCompacted(into:)`, for backups.
    func copyEnvironment(into directory: String) throws(ShareLogError) {
        try lifetime.run { () throws(ShareLogError) in try Self.storage { try environment.copyCompacted(into: directory) } }
    }

    /// Runs `body`, turning an `LMDBError` into `ShareLogError.storage`
    /// (`closed` for an environment closed under it).
    static func storage<R>(_ body: () throws -> R) throws(ShareLogError) -> R {
        do { return try body() } catch { throw engineError(error) }
    }

    /// What an error of the store's interior is as a `ShareLogError`.
    ///
    /// The interior (the log, the projections, the sidecar files, the
    /// LMDB wrapper) throws only `ShareLogError`, passed through, and
    /// `LMDBError`, the storage failure that becomes `.storage`, or
    /// `.closed` for `LMDBError.closed` (whose context is the environment's
    /// path). Any other error is a bug in ShareLog, not a state of the
    /// store: it traps rather than being relabelled as a case that would
    /// send the user to the wrong remedy (a "corrupt store" for a full disk).
    static func engineError(_ error: any Error) -> ShareLogError {
        switch error {
        case let error as ShareLogError: error
        case let error as LMDBError where error == .closed: .closed(path: error.context)
        case let error as LMDBError: .storage(error)
        default: preconditionFailure("ShareLog's interior threw \(type(of: error)): \(error); only ShareLogError and LMDBError may")
        }
    }
}
