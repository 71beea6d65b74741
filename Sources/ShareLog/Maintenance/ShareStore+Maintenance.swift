import LMDB

extension ShareStore {
    /// One maintenance pass, as `sharelog maintain --once` runs it: takes
    /// the store's maintenance lock (`maintenance.lock`, a `flock` that dies
    /// with its holder), sweeps the shares due at `time` (default: now),
    /// compacts when a card waits for it (an expired or revoked share's:
    /// the rewrite and the scrub that end every compaction), and, when
    /// `trimming`, trims with the default retention and forgets the
    /// idempotency keys of uploads older than `idempotencyRetention`.
    ///
    /// When another process holds the lock (a `MaintenanceScheduler` holds
    /// it for as long as it runs), or another pass of this one does,
    /// returns at once with `ran` false and nothing done: a cron job and a
    /// server that maintain one store never work over each other.
    ///
    /// Each step works in short batches, one write transaction each, so
    /// other writers wait at most a batch; reads (fetches, sync) never
    /// wait. The compaction's scrub holds the writer for one pass over the
    /// file's free pages (`compact`).
    ///
    /// - Throws: what the steps throw; a failed step ends the pass, and what
    ///   the steps before it committed stays.
    @discardableResult
    @available(*, noasync, message: "run maintenance on a thread of its own (MaintenanceScheduler)")
    public func maintain(
        at time: Timestamp? = nil, trimming: Bool = false, schedule: MaintenanceSchedule = MaintenanceSchedule()
    ) throws(ShareLogError) -> MaintenanceReport {
        let now = time ?? clock.now()
        guard let lock = try MaintenanceLock.acquire(inDirectory: path) else { return MaintenanceReport(at: now, ran: false) }
        return try withExtendedLifetime(lock) { () throws(ShareLogError) in
            try maintenancePass(at: now, trimming: trimming, schedule: schedule)
        }
    }

    /// One pass of `maintain`, its caller holding the maintenance lock.
    func maintenancePass(at now: Timestamp, trimming: Bool, schedule: MaintenanceSchedule) throws(ShareLogError) -> MaintenanceReport {
        var report = MaintenanceReport(at: now, ran: true)
        let sweepStart = ContinuousClock.now
        report.sweep = try sweep(at: now, batchSize: schedule.sweepBatch, progress: nil, cancellation: nil)
        report.sweepDuration = .now - sweepStart
        if try hasPendingRedactions() {
            let compactionStart = ContinuousClock.now
            report.compaction = try compact(batchSize: schedule.compactionBatch, progress: nil, cancellation: nil)
            report.compactionDuration = .now - compactionStart
        }
        if trimming {
            report.trim = try trim(at: now)
            report.forgottenKeys = try removeIdempotencyEntries(firstSeenBefore: now.advanced(by: .zero - Self.idempotencyRetention))
        }
        return report
    }

    /// Whether a log entry still holds a card that a compaction must
    /// remove: O(1), one read of the first `pendingRedactions` key.
    func hasPendingRedactions() throws(ShareLogError) -> Bool {
        try read { txn in
            var any = false
            try txn.scan(self.schema.pendingRedactions) { _ in
                any = true
                return .stop
            }
            return any
        }
    }
}
