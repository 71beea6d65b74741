import ShareLog

/// Which of the situations a `ConvergenceScript` is meant to create one run
/// really met, so a generator change cannot quietly stop testing them.
struct ScriptCoverage {
    private var created: Set<RecordName> = []
    private var tombstoned: Set<RecordName> = []
    private var firstArrivals: [EventID: Event] = [:]
    private(set) var tombstonesFirst = 0
    private(set) var rivalCreations = 0
    private(set) var duplicates = 0
    private(set) var redactedCopies = 0
    var sweptShares = 0
    var redactedEntries = 0
    var revokes = 0

    /// Notes a delivered event and whether the model logged it.
    ///
    /// - Returns: `logged`.
    mutating func note(_ event: Event, logged: Bool) -> Bool {
        guard logged else {
            duplicates += 1
            if firstArrivals[event.id] != event { redactedCopies += 1 }
            return false
        }
        firstArrivals[event.id] = event
        switch event.kind {
        case .shareCreated(let creation):
            if !created.insert(creation.recordName).inserted {
                rivalCreations += 1
            } else if tombstoned.contains(creation.recordName) {
                tombstonesFirst += 1
            }
        case .shareExpired(let expiry):
            if !created.contains(expiry.recordName) { tombstoned.insert(expiry.recordName) }
        case .unknown:
            break
        }
        return true
    }

    /// The situations not met.
    var missing: [String] {
        [
            ("a creation after its tombstone", tombstonesFirst), ("rival creations", rivalCreations),
            ("a duplicate", duplicates), ("a redacted copy of a logged creation, or the reverse", redactedCopies),
            ("a sweep that expired a share", sweptShares), ("a compaction that redacted an entry", redactedEntries),
            ("a revoke", revokes),
        ].filter { $0.1 == 0 }.map(\.0)
    }
}
