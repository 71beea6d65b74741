import ShareLog

/// The share workload: writers create shares (every eighth with a photo),
/// revoke shares they created, sweep at their own clock and compact, with
/// a clock that moves 20 seconds per operation and times to live of 1 to 10
/// minutes, so sweeps and compactions always find work.
public struct ShareWorkload: CrashWorkload {
    public let name = "shares"
    public let timeStep: Int64 = 20_000
    /// Small batches, so sweeps and compactions span several commits.
    static let batchSize = 4

    enum Kind {
        static let create = "create"
        static let revoke = "revoke"
        static let sweep = "sweep"
        static let compact = "compact"
    }

    public init() {}

    /// Shares this writer incarnation created, which it may revoke.
    public struct WriterState {
        var revocable: [(name: String, expiresAt: Int64)] = []
    }

    public func makeWriterState() -> WriterState { WriterState() }

    public func nextOperation(slot: Int, number: Int, time: Int64, state: inout WriterState,
                              random: inout SeededGenerator) -> CrashOperation {
        state.revocable.removeAll { $0.expiresAt <= time }
        let roll = Int.random(in: 0..<100, using: &random)
        if roll >= 55, roll < 75, !state.revocable.isEmpty {
            let target = state.revocable.remove(at: Int.random(in: 0..<state.revocable.count, using: &random))
            return CrashOperation(slot: slot, number: number, kind: Kind.revoke, time: time, target: target.name)
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
            let created = try create(operation, on: store)
            state.revocable.append((created.recordName ?? "", created.expiresAt ?? 0))
            return created
        case Kind.revoke:
            guard let target = operation.target.flatMap(RecordName.init) else {
                throw CrashViolation("revoke without a record name: \(operation)")
            }
            do {
                try store.revoke(target)
                return CrashResult()
            } catch ShareLogError.expired(_, let at, let reason) {
                // Another writer's sweep, at a later clock, ended it first.
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
        let operation = CrashOperation(slot: CrashOperation.probeSlot, number: number, kind: Kind.create, time: time,
                                       card: 900_000_000 + number, ttlSeconds: 600)
        let created = try create(operation, on: store)
        guard let name = created.recordName.flatMap(RecordName.init),
              case .live(let share) = try store.fetch(name, at: Timestamp(milliseconds: time)),
              share.vCard == CrashCard.bytes(index: 900_000_000 + number)
        else { throw CrashViolation("the probe share \(created.recordName ?? "?") does not read back after its create") }
        return CrashHistory.Acknowledged(operation: operation, result: created)
    }

    private func create(_ operation: CrashOperation, on store: ShareStore) throws -> CrashResult {
        guard let card = operation.card, let ttl = operation.ttlSeconds else {
            throw CrashViolation("create without a card or ttl: \(operation)")
        }
        let created = try store.create(vCard: CrashCard.bytes(index: card), ttl: .seconds(ttl))
        return CrashResult(recordName: created.recordName.description, expiresAt: created.expiresAt.milliseconds)
    }

    public func check(_ history: CrashHistory, in store: ShareStore) throws -> CrashCheck {
        var audit = ShareAudit(model: ShareModel(history), store: store)
        return try audit.run()
    }
}
