import LMDB
import LMDBScrub

extension ShareStore {
    /// How long a share is remembered after it ended, by default: twice
    /// the longest time to live. It must be longer than the longest TTL: a
    /// creation that arrives after its share was forgotten (from a peer
    /// that was away) then already reads as expired, since it expired
    /// before the horizon, so forgetting never brings a share back.
    public static let defaultRetention: Duration = ttlRange.upperBound * 2

    /// Forgets every share that ended more than `retention` before `time`
    /// (default: now): its state and every log entry of its record name
    /// (creations, rivals', ends, duplicates), with their index entries,
    /// so that tombstones and the log stop growing (docs/ENGINE.md
    /// "Retention").
    ///
    /// The log then has gaps; `meta` `trimmed-through` records the highest
    /// position removed. A peer whose cursor is behind it gets
    /// `snapshotRequired(.behindHorizon)`, and `verify` accepts gaps up to it.
    ///
    /// Each pass reads the whole log once (O(log)) and collects up to
    /// `windowSize` shares with all their entries; each write transaction
    /// then forgets up to `batchSize` of them, after checking that none of
    /// them changed, or got a new entry, since the pass read them. A share
    /// still pending (ended by its clock, not yet swept) is left for after
    /// the next sweep. When a removed entry still held a card, the trim
    /// ends with `Environment.scrub()`.
    ///
    /// - Precondition: `retention >= ttlRange.upperBound`.
    @discardableResult
    @available(*, noasync, message: "run trim on a thread of its own")
    public func trim(
        retention: Duration = ShareStore.defaultRetention, at time: Timestamp? = nil, windowSize: Int = 10_000, batchSize: Int = 500,
        progress: ((TrimReport) -> Void)? = nil
    ) throws(ShareLogError) -> TrimReport {
        precondition(retention >= ShareStore.ttlRange.upperBound, "a share must be remembered longer than the longest time to live")
        precondition(windowSize > 0 && batchSize > 0, "a trim handles at least one share at a time")
        let now = time ?? clock.now()
        let horizon = now.advanced(by: .zero - retention)
        var report = TrimReport()
        var heldCards = false
        while true {
            let (candidates, scannedThrough) = try read { txn in try trimCandidates(endedBefore: horizon, now: now, limit: windowSize, in: txn) }
            guard !candidates.isEmpty else { break }
            report.passes += 1
            var trimmedThisPass = 0
            for start in stride(from: 0, to: candidates.count, by: batchSize) {
                let batch = Array(candidates[start..<min(start + batchSize, candidates.count)])
                let done = try write { txn in try self.forget(batch, scannedThrough: scannedThrough, in: txn) }
                report.shares += done.shares
                report.entries += done.entries
                report.batches += 1
                report.trimmedThrough = max(report.trimmedThrough, done.trimmedThrough)
                heldCards = heldCards || done.heldCards
                trimmedThisPass += done.shares
                progress?(report)
            }
            if candidates.count < windowSize || trimmedThisPass == 0 { break }
        }
        if heldCards { report.scrub = try scrub() }
        return report
    }

    /// The shares ended before `horizon` (and not pending), up to `limit`,
    /// each with every log entry of its name; and the last position read.
    private func trimCandidates(
        endedBefore horizon: Timestamp, now: Timestamp, limit: Int, in txn: borrowing ReadTransaction
    ) throws -> ([TrimCandidate], UInt64) {
        var candidates: [TrimCandidate] = []
        var index: [RecordName: Int] = [:]
        var last: UInt64 = 0
        var failure: ShareLogError?
        try txn.scan(schema.log) { entry in
            let position = try EventLog.sequence(ofKey: entry.key)
            last = position
            let event: Event
            do throws(EventDecodingError) { event = try EventCodec.decode(entry.value) } catch {
                failure = .corruptEvent(position: position, reason: .undecodable(error))
                return .stop
            }
            guard let name = event.recordName else { return .proceed }
            var holdsCard = false
            if case .shareCreated(let created) = event.kind { holdsCard = created.vCard != nil }
            let logged = TrimCandidate.Entry(position: position, id: event.id, holdsCard: holdsCard)
            if let slot = index[name] {
                candidates[slot].entries.append(logged)
            } else if candidates.count < limit, let state = try trimmableState(of: name, endedBefore: horizon, now: now, in: txn) {
                index[name] = candidates.count
                candidates.append(TrimCandidate(name: name, state: state, entries: [logged]))
            }
            return .proceed
        }
        if let failure { throw failure }
        return (candidates, last)
    }

    /// The stored state of `name` when its share ended before `horizon`
    /// and is not pending; nil otherwise.
    private func trimmableState(
        of name: RecordName, endedBefore horizon: Timestamp, now: Timestamp, in txn: borrowing Transaction<some TransactionAccess>
    ) throws -> [UInt8]? {
        guard let state = try projection.state(of: name, in: txn) else { return nil }
        if let creation = state.creation, try txn.contains(Key.expiry(creation.expiresAt, name), in: schema.expiry) { return nil }
        guard let end = try projection.end(of: name, state, at: now, in: txn), end.at < horizon else { return nil }
        return state.encoded()
    }

    /// Forgets `candidates` in one transaction, but any whose state
    /// changed since the pass, or whose name has an entry logged after
    /// `scannedThrough`.
    private func forget(
        _ candidates: [TrimCandidate], scannedThrough: UInt64, in txn: borrowing WriteTransaction
    ) throws -> (shares: Int, entries: Int, trimmedThrough: UInt64, heldCards: Bool) {
        var touched: Set<RecordName> = []
        try txn.scan(schema.log, in: .from(Key.sequence(scannedThrough &+ 1))) { entry in
            if let name = (try? EventCodec.decode(entry.value))?.recordName { touched.insert(name) }
            return .proceed
        }
        var shares = 0, entries = 0, through: UInt64 = 0, heldCards = false
        var projection = self.projection
        for candidate in candidates where !touched.contains(candidate.name) {
            let current = try txn.value(forKey: candidate.name.bytes, in: schema.shares)
            guard current == candidate.state else { continue }
            for entry in candidate.entries {
                _ = try txn.delete(Key.sequence(entry.position), in: schema.log)
                _ = try txn.delete(Key.event(entry.id), in: schema.eventIndex)
                _ = try txn.delete(Key.sequence(entry.position), in: schema.pendingRedactions)
                through = max(through, entry.position)
                heldCards = heldCards || entry.holdsCard
            }
            try projection.forgetEnded(candidate.name, in: txn)
            shares += 1
            entries += candidate.entries.count
        }
        try projection.finish(in: txn)
        if through > 0 {
            let stored = try ShareProjection.counter(MetaKey.trimmedThrough, schema: schema, in: txn)
            if through > stored { try txn.put(Key.bigEndian(through), forKey: MetaKey.trimmedThrough, in: schema.meta) }
        }
        return (shares, entries, through, heldCards)
    }
}
