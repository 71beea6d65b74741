import ShareLog
import TestSupport

/// A kind of work the crash harness runs and checks.
///
/// The writer side runs in a child process that the parent kills at random:
/// it picks each operation (everything about it decided before the call, so
/// it can be printed in the `begin` line) and performs it. The checker side
/// runs in the parent on the reopened store and compares it with the
/// history of acknowledged and in-doubt operations. `ShareWorkload` is the
/// single store's workload; `SyncWorkload` is the one a pair of syncing
/// stores runs (`SyncCrashRunner`).
public protocol CrashWorkload: Sendable {
    /// What one writer incarnation remembers between its operations.
    associatedtype WriterState

    /// The name `sharelog-crash --workload` selects.
    var name: String { get }

    /// How far a writer's clock moves per operation, in milliseconds.
    var timeStep: Int64 { get }

    /// A fresh writer's state.
    func makeWriterState() -> WriterState

    /// Picks the writer's next operation, numbered `number`, at `time`.
    func nextOperation(slot: Int, number: Int, time: Int64, state: inout WriterState,
                       random: inout SeededGenerator) -> CrashOperation

    /// Performs `operation` and returns once it is durably committed.
    ///
    /// - Throws: only failures that are bugs; expected refusals are results.
    func perform(_ operation: CrashOperation, on store: ShareStore, state: inout WriterState) throws -> CrashResult

    /// Writes once through the parent's own handle at `time`, to show the
    /// store still accepts writes, and reads the write back.
    ///
    /// - Returns: the write as an acknowledged operation of
    ///   `CrashOperation.probeSlot`, numbered `number`, for the history.
    /// - Throws: `CrashViolation` when the write does not read back.
    func probe(number: Int, time: Int64, on store: ShareStore) throws -> CrashHistory.Acknowledged

    /// Checks the reopened, quiescent store against `history`.
    ///
    /// - Returns: what was checked, with every violation found.
    func check(_ history: CrashHistory, in store: ShareStore) throws -> CrashCheck
}

extension CrashWorkload {
    /// Everything the runner checks after a round: the workload's invariants,
    /// then the store-wide ones (`verify` consistent, no gap, nothing corrupt).
    public func checkAll(_ history: CrashHistory, in store: ShareStore) throws -> CrashCheck {
        var check = try self.check(history, in: store)
        try StoreInvariants.check(store, into: &check)
        return check
    }

    /// Creates `operation`'s share (its card and TTL) and returns once it
    /// is durably committed.
    func createShare(_ operation: CrashOperation, on store: ShareStore) throws -> CrashResult {
        guard let card = operation.card, let ttl = operation.ttlSeconds else {
            throw CrashViolation("create without a card or ttl: \(operation)")
        }
        let created = try store.create(vCard: CrashCard.bytes(index: card), ttl: .seconds(ttl))
        return CrashResult(recordName: created.recordName.description, expiresAt: created.expiresAt.milliseconds)
    }

    /// The usual `probe`: creates card 900,000,000 + `number` with
    /// `ttlSeconds` at `time`, and reads it back.
    func probeCreate(number: Int, time: Int64, ttlSeconds: Int64, on store: ShareStore) throws -> CrashHistory.Acknowledged {
        let operation = CrashOperation(slot: CrashOperation.probeSlot, number: number, kind: "create", time: time,
                                       card: 900_000_000 + number, ttlSeconds: ttlSeconds)
        let created = try createShare(operation, on: store)
        guard let name = created.recordName.flatMap(RecordName.init),
              case .live(let share) = try store.fetch(name, at: Timestamp(milliseconds: time)),
              share.vCard == CrashCard.bytes(index: 900_000_000 + number)
        else { throw CrashViolation("the probe share \(created.recordName ?? "?") does not read back after its create") }
        return CrashHistory.Acknowledged(operation: operation, result: created)
    }
}
