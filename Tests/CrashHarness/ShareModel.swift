import ShareLog

/// What a share-workload history says the store must, may and must not hold.
struct ShareModel {
    /// A share whose create was acknowledged, or an in-doubt create.
    struct Creation {
        let operation: CrashOperation
        var createdAt: Int64 { operation.time }
        let expiresAt: Int64
        var card: [UInt8] { CrashCard.bytes(index: operation.card ?? 0) }
    }

    /// An acknowledged operation's slot, number and time, for ordering
    /// within a slot.
    struct Step {
        let slot: Int
        let number: Int
        let time: Int64
        let count: Int
    }

    private(set) var acknowledgedCreates: [RecordName: Creation] = [:]
    private(set) var inDoubtCreates: [Creation] = []
    /// Acknowledged revokes: when, and the revoking step.
    private(set) var revokes: [RecordName: Step] = [:]
    /// Shares a writer found ended (a refused revoke, a read): when and why.
    private(set) var refusals: [RecordName: (at: Int64, reason: String)] = [:]
    private(set) var inDoubtRevokes: [RecordName: Int64] = [:]
    private(set) var sweeps: [Step] = []
    private(set) var compactions: [Step] = []
    /// The latest time any sweep, acknowledged or in doubt, ran at; nil
    /// when none began.
    private(set) var latestSweep: Int64?
    let operations: Int

    init(_ history: CrashHistory) {
        operations = history.acknowledged.count
        for entry in history.acknowledged { add(entry.operation, result: entry.result) }
        for operation in history.inDoubt { addInDoubt(operation) }
    }

    private mutating func add(_ operation: CrashOperation, result: CrashResult) {
        let step = Step(slot: operation.slot, number: operation.number, time: operation.time, count: result.count ?? 0)
        switch operation.kind {
        case ShareWorkload.Kind.create:
            guard let name = result.recordName.flatMap(RecordName.init), let expiresAt = result.expiresAt else { return }
            acknowledgedCreates[name] = Creation(operation: operation, expiresAt: expiresAt)
        case ShareWorkload.Kind.revoke:
            guard let name = operation.target.flatMap(RecordName.init) else { return }
            if let at = result.endedAt, let reason = result.endedBecause {
                refusals[name] = (at, reason)
            } else {
                revokes[name] = step
            }
        case ShareWorkload.Kind.read:
            guard let name = operation.target.flatMap(RecordName.init) else { return }
            if let at = result.endedAt, let reason = result.endedBecause { refusals[name] = (at, reason) }
        case ShareWorkload.Kind.sweep:
            sweeps.append(step)
            latestSweep = max(latestSweep ?? operation.time, operation.time)
        case ShareWorkload.Kind.compact:
            compactions.append(step)
        default:
            return
        }
    }

    private mutating func addInDoubt(_ operation: CrashOperation) {
        switch operation.kind {
        case ShareWorkload.Kind.create:
            let expiresAt = operation.time + (operation.ttlSeconds ?? 0) * 1000
            inDoubtCreates.append(Creation(operation: operation, expiresAt: expiresAt))
        case ShareWorkload.Kind.revoke:
            if let name = operation.target.flatMap(RecordName.init) { inDoubtRevokes[name] = operation.time }
        case ShareWorkload.Kind.sweep:
            latestSweep = max(latestSweep ?? operation.time, operation.time)
        default:
            return
        }
    }

    /// Acknowledged creates in `slot` numbered below `number` that are due at
    /// `time`: a sweep acknowledged later in the same slot must have ended them.
    func creates(in slot: Int, before number: Int, dueAt time: Int64) -> [RecordName] {
        acknowledgedCreates.compactMap { name, creation in
            creation.operation.slot == slot && creation.operation.number < number && creation.expiresAt <= time ? name : nil
        }
    }

    /// Shares whose end was acknowledged in `slot` before operation `number`:
    /// revoked there, or due at a sweep there (a compaction acknowledged
    /// afterwards in the same slot must have redacted their cards).
    func endedShares(in slot: Int, before number: Int) -> Set<RecordName> {
        var ended = Set(revokes.compactMap { name, step in step.slot == slot && step.number < number ? name : nil })
        for sweep in sweeps where sweep.slot == slot && sweep.number < number {
            ended.formUnion(creates(in: slot, before: sweep.number, dueAt: sweep.time))
        }
        return ended
    }
}
