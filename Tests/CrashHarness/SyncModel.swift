import ShareLog

/// What a sync-workload history (both sides' writers, and the runner's
/// probes) says every store of the pair must, may and must not hold, once
/// the pair has converged.
struct SyncModel {
    /// A create a writer acknowledged, with the record name its ack printed.
    struct Creation {
        let operation: CrashOperation
        let name: RecordName
        let expiresAt: Int64
        var card: Int { operation.card ?? 0 }
    }

    /// Acknowledged creates by record name.
    private(set) var creations: [RecordName: Creation] = [:]
    /// Acknowledged revokes: the time each share must answer as revoked at.
    private(set) var revokes: [RecordName: Int64] = [:]
    /// Revokes begun and not acknowledged: each may or may not have committed.
    private(set) var revokesInDoubt: [RecordName: Int64] = [:]
    /// The card of every create begun, acknowledged or in doubt.
    private(set) var begunCards: Set<Int> = []
    /// Cards of creates in doubt.
    private(set) var inDoubtCards: Set<Int> = []
    /// Acknowledged operations (creates and revokes).
    let operations: Int

    init(_ history: CrashHistory) {
        operations = history.acknowledged.count
        for entry in history.acknowledged {
            let operation = entry.operation
            switch operation.kind {
            case SyncWorkload.Kind.create:
                guard let name = entry.result.recordName.flatMap(RecordName.init), let expiresAt = entry.result.expiresAt,
                      let card = operation.card
                else { continue }
                creations[name] = Creation(operation: operation, name: name, expiresAt: expiresAt)
                begunCards.insert(card)
            case SyncWorkload.Kind.revoke:
                if let name = operation.target.flatMap(RecordName.init) { revokes[name] = operation.time }
            default:
                continue
            }
        }
        for operation in history.inDoubt {
            switch operation.kind {
            case SyncWorkload.Kind.create:
                if let card = operation.card {
                    begunCards.insert(card)
                    inDoubtCards.insert(card)
                }
            case SyncWorkload.Kind.revoke:
                if let name = operation.target.flatMap(RecordName.init) { revokesInDoubt[name] = operation.time }
            default:
                continue
            }
        }
    }

    /// Whether some writer began a revoke of `name`.
    func revokeBegun(_ name: RecordName) -> Bool { revokes[name] != nil || revokesInDoubt[name] != nil }
}
