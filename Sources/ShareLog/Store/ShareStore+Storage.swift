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
        try Self.storage { try environment.write(body) }
    }

    func write<R: Sendable>(_ body: @escaping @Sendable (borrowing WriteTransaction) throws -> R) async throws -> R {
        do { return try await environment.write(body) } catch let error as LMDBError { throw ShareLogError.storage(error) }
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
