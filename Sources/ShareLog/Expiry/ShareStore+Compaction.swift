import LMDB
import LMDBScrub

extension ShareStore {
    /// Removes the vCards of expired shares from the log, then from the
    /// store's file.
    ///
    /// A card lives only in its `shareCreated` log entry. The moment its
    /// share ends, no answer reads it any more and the entry is queued in
    /// `pendingRedactions`; the entry keeps the card until compaction
    /// rewrites it in place: same event id, same sequence, the redacted flag set
    /// and no card. Entries to rewrite come from `pendingRedactions`, in
    /// batches of `batchSize` entries, each one short write transaction:
    /// O(expired since the last compaction).
    ///
    /// LMDB never erases, so the old bytes of every rewritten entry and
    /// dropped index entry linger in free pages and unused page areas.
    /// Compaction ends with `Environment.scrub()`, which zeroes them (see
    /// its contract and docs/ENGINE.md#privacy): O(pages in the file), and
    /// every writer waits for it.
    ///
    /// - Throws: `ShareLogError.corruptKey` for a damaged `pendingRedactions`
    ///   key, with that batch unwritten and no scrub.
    /// - Parameter progress: called after each committed batch.
    @discardableResult
    @available(*, noasync, message: "use the async compact from async code")
    public func compact(batchSize: Int = 1000, progress: ((CompactionReport) -> Void)? = nil) throws(ShareLogError) -> CompactionReport {
        try compact(batchSize: batchSize, progress: progress, cancellation: nil)
    }

    /// `compact(batchSize:progress:)`, checking `cancellation` before each
    /// batch and before the scrub (for the async form).
    func compact(
        batchSize: Int, progress: ((CompactionReport) -> Void)?, cancellation: CancellationFlag?
    ) throws(ShareLogError) -> CompactionReport {
        precondition(batchSize > 0, "a compaction batch holds at least one entry")
        var report = CompactionReport()
        while true {
            try cancellation?.check()
            let redacted = try write { txn -> Int in
                var sequences: [UInt64] = []
                try txn.scan(self.schema.pendingRedactions) { entry in
                    guard let sequence = Key.integer(entry.key, as: UInt64.self) else {
                        throw ShareLogError.corruptKey(
                            database: "pendingRedactions", key: Array(entry.key), reason: "not an 8-byte log position")
                    }
                    sequences.append(sequence)
                    return sequences.count < batchSize ? .proceed : .stop
                }
                for sequence in sequences {
                    try self.redact(at: sequence, in: txn)
                    try txn.delete(Key.sequence(sequence), in: self.schema.pendingRedactions)
                }
                return sequences.count
            }
            report.redacted += redacted
            report.batches += 1
            progress?(report)
            if redacted < batchSize { break }
        }
        try cancellation?.check()
        report.scrub = try scrub()
        return report
    }

    /// Rewrites the `shareCreated` at `sequence` without its card.
    private func redact(at sequence: UInt64, in txn: borrowing WriteTransaction) throws {
        guard let event = try log.event(at: sequence, in: txn),
              case .shareCreated(let created) = event.kind, created.vCard != nil
        else { return }
        let redacted = Event(id: event.id, kind: .shareCreated(created.redacted))
        try txn.put(EventCodec.encode(redacted), forKey: Key.sequence(sequence), in: schema.log)
    }
}
