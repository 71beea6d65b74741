import ShareLog
import TestSupport

/// The share workload: writers create shares (every eighth with a photo),
/// read back and revoke shares they created, sweep at their own clock and
/// compact (which ends with a scrub of the file), with a clock that moves 20
/// seconds per operation and times to live of 1 to 10 minutes, so sweeps
/// and compactions always find work. Reads run while other writer processes
/// commit, sweep and scrub; a read that does not give the card back stops
/// the writer, which the parent reports.
public struct ShareWorkload: CrashWorkload {
    public let name = "shares"
    public let timeStep: Int64 = 20_000
    /// Small batches, so sweeps and compactions span several commits.
    static let batchSize = 4

    enum Kind {
        static let create = "create"
        static let read = "read"
        static let revoke = "revoke"
        static let sweep = "sweep"
        static let compact = "compact"
    }

    public init() {}

    /// Shares this writer incarnation created, which it may revoke.
    public struct WriterState {
        var revocable: [(name: String, expiresAt: Int64, card: Int)] = []
    }

    public func makeWriterState() -> WriterState { WriterState() }

    public func nextOperation(slot: Int, number: Int, time: Int64, state: inout WriterState,
                              random: inout SeededGenerator) -> CrashOperation {
        state.revocable.removeAll { $0.expiresAt <= time }
        let roll = Int.random(in: 0..<100, using: &random)
        if roll >= 50, roll < 75, !state.revocable.isEmpty {
            let index = Int.random(in: 0..<state.revocable.count, using: &random)
            let target = roll < 60 ? state.revocable[index] : state.revocable.remove(at: index)
            return CrashOperation(slot: slot, number: number, kind: roll < 60 ? Kind.read : Kind.revoke, time: time,
                                  card: roll < 60 ? target.card : nil, target: target.name)
        }
        if roll >= 75 {
            return CrashOperation(slot: slot, number: number, kind: roll < 93 ? Kind.sweep : Kind.compact, time: time)
        }
        return CrashOperation(slot: slot, number: number, kind: Kind.create, time: time,
                              card: slot * 10_000_000 + number, ttlSeconds: Int64.random(in: 60...600, using: &random))
    }

    public func perform(_ operation: CrashOperation, on store: ShareStore, state: inout WriterState) throws -> CrashResult {
        switch operation.kind {
        case Kind.create:
            let created = try createShare(operation, on: store)
            state.revocable.append((created.recordName ?? "", created.expiresAt ?? 0, operation.card ?? 0))
            return created
        case Kind.read:
            guard let target = operation.target.flatMap(RecordName.init),
                  let expected = state.revocable.first(where: { $0.name == operation.target })
            else { throw CrashViolation("read of a share this writer did not create: \(operation)") }
            switch try store.fetch(target) {
            case .live(let share) where share.vCard == CrashCard.bytes(index: expected.card):
                return CrashResult()
            case .expired(let at, .ttl) where at.milliseconds == expected.expiresAt:
                // Another writer's sweep, at a later clock, ended it.
                return CrashResult(endedAt: at.milliseconds, endedBecause: ExpiryReason.ttl.description)
            case let other:
                throw CrashViolation("share \(target) reads back as \(other), not the card it was created with")
            }
        case Kind.revoke:
            guard let target = operation.target.flatMap(RecordName.init) else {
                throw CrashViolation("revoke without a record name: \(operation)")
            }
            do {
                try store.revoke(target)
                return CrashResult()
            } catch {
                // Another writer's sweep, at a later clock, ended it first.
                guard case .expired(_, let at, let reason) = error else { throw error }
                return CrashResult(endedAt: at.milliseconds, endedBecause: reason.description)
            }
        case Kind.sweep:
            return CrashResult(count: try store.sweep(batchSize: Self.batchSize).expired)
        case Kind.compact:
            return CrashResult(count: try store.compact(batchSize: Self.batchSize).redacted)
        default:
            throw CrashViolation("the share workload has no operation \(operation.kind)")
        }
    }

    public func probe(number: Int, time: Int64, on store: ShareStore) throws -> CrashHistory.Acknowledged {
        try probeCreate(number: number, time: time, ttlSeconds: 600, on: store)
    }

    public func check(_ history: CrashHistory, in store: ShareStore) throws -> CrashCheck {
        var audit = ShareAudit(model: ShareModel(history), store: store)
        return try audit.run()
    }
}
