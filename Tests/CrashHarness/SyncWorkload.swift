import ShareLog
import TestSupport

/// The workload of the sync crash run (`SyncCrashRunner`): each writer
/// creates shares (every eighth card with a photo) and revokes some of the
/// ones it created, on its own side of the pair, while the pair syncs. No
/// sweeps and a TTL of 7 days against a clock that moves 10 ms per
/// operation: every share a writer acknowledged stays live on both sides
/// unless its revoke was acknowledged, so the checker can say exactly what
/// each side must answer.
public struct SyncWorkload: CrashWorkload {
    public let name = "sync-shares"
    public let timeStep: Int64 = 10
    /// Every share lives 7 days, the default TTL.
    static let ttlSeconds: Int64 = 7 * 24 * 3600

    enum Kind {
        static let create = "create"
        static let revoke = "revoke"
    }

    public init() {}

    /// Shares this writer incarnation created, which it may revoke.
    public struct WriterState {
        var revocable: [String] = []
    }

    public func makeWriterState() -> WriterState { WriterState() }

    /// One operation in five revokes a share the incarnation created, when
    /// it has one; the rest create. Card numbers are the slot's, so the two
    /// sides never share one.
    public func nextOperation(slot: Int, number: Int, time: Int64, state: inout WriterState,
                              random: inout SeededGenerator) -> CrashOperation {
        if Int.random(in: 0..<5, using: &random) == 0, !state.revocable.isEmpty {
            let target = state.revocable.remove(at: Int.random(in: 0..<state.revocable.count, using: &random))
            return CrashOperation(slot: slot, number: number, kind: Kind.revoke, time: time, target: target)
        }
        return CrashOperation(slot: slot, number: number, kind: Kind.create, time: time,
                              card: slot * 10_000_000 + number, ttlSeconds: Self.ttlSeconds)
    }

    /// Performs a create or a revoke.
    ///
    /// - Throws: `CrashViolation` for a revoke the store refuses: nothing
    ///   else ends a share in this workload, so that is a bug.
    public func perform(_ operation: CrashOperation, on store: ShareStore, state: inout WriterState) throws -> CrashResult {
        switch operation.kind {
        case Kind.create:
            let created = try createShare(operation, on: store)
            state.revocable.append(created.recordName ?? "")
            return created
        case Kind.revoke:
            guard let target = operation.target.flatMap(RecordName.init) else {
                throw CrashViolation("revoke without a record name: \(operation)")
            }
            try store.revoke(target)
            return CrashResult()
        default:
            throw CrashViolation("the sync workload has no operation \(operation.kind)")
        }
    }

    /// Creates a share of card `900_000_000 + number` through the runner's
    /// own handle and reads it back.
    public func probe(number: Int, time: Int64, on store: ShareStore) throws -> CrashHistory.Acknowledged {
        try probeCreate(number: number, time: time, ttlSeconds: Self.ttlSeconds, on: store)
    }

    /// Checks one side of the pair against every side's history (see `SyncAudit`).
    public func check(_ history: CrashHistory, in store: ShareStore) throws -> CrashCheck {
        var audit = SyncAudit(model: SyncModel(history), store: store, label: "the store")
        return try audit.run().check
    }
}
