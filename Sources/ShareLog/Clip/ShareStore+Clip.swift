import LMDB

/// The App Clip's lifecycle (docs/SYNC.md "The clip's lifecycle"): the
/// share it showed last, for a relaunch without a link, and the handoff of
/// what it holds to the full app, exactly once.
extension ShareStore {
    /// Remembers `name` as the share this store showed last, durably.
    public func recordShown(_ name: RecordName) throws {
        try write { txn in try txn.put(name.bytes, forKey: MetaKey.lastShown, in: self.schema.meta) }
    }

    /// The share this store showed last (`recordShown`), or nil.
    ///
    /// - Throws: `corruptMeta("last-shown")` for a value that is not a record name.
    public func lastShown() throws -> RecordName? {
        let stored = try read { txn in
            try txn.withValue(forKey: MetaKey.lastShown, in: schema.meta) { $0.count == 16 ? RecordName(bytes: $0) : nil }
        }
        guard let stored else { return nil }
        guard let name = stored else { throw ShareLogError.corruptMeta("last-shown") }
        return name
    }

    /// The replica this store was handed off to, and when; nil before.
    public func handedOff() throws -> (to: ReplicaID, at: Timestamp)? {
        let stored = try read { txn in try txn.value(forKey: MetaKey.handedOff, in: schema.meta) }
        guard let stored else { return nil }
        guard stored.count == 24, let milliseconds = Key.integer(stored.withUnsafeBytes { UnsafeRawBufferPointer(rebasing: $0[16...]) }, as: Int64.self)
        else { throw ShareLogError.corruptMeta("handed-off") }
        return (ReplicaID(bytes: stored[..<16]), Timestamp(milliseconds: milliseconds))
    }

    /// Adopts what the clip store `clip` holds, exactly once: the events of
    /// every share live there at `time` (default: now) are applied here,
    /// with a cursor on the clip, in one transaction; then the clip is
    /// marked as handed off to this store. Shares that ended are not
    /// adopted. A second run, once the mark is there, does nothing; a run
    /// cut short between the two steps is completed by the next (the
    /// events are there already, and only the mark is written).
    ///
    /// `clip` must be open for writing (the mark is written to it). A clip
    /// holds a handful of shares, so its whole log is read at once.
    public func adopt(from clip: ShareStore, at time: Timestamp? = nil) throws -> HandoffReport {
        let now = time ?? clock.now()
        var report = HandoffReport()
        if let mark = try clip.handedOff(), mark.to == replicaID {
            report.alreadyHandedOffAt = mark.at
            return report
        }
        var logged: [LoggedEvent] = []
        while true {
            let page = try clip.events(after: logged.last?.position ?? 0, limit: 1000)
            guard !page.isEmpty else { break }
            logged += page
        }
        var live: Set<RecordName> = [], ended: Set<RecordName> = []
        for name in Set(logged.compactMap(\.event.recordName)) {
            if case .live = try clip.fetch(name, at: now) { live.insert(name) } else { ended.insert(name) }
        }
        let events = logged.map(\.event).filter { $0.recordName.map(live.contains) ?? false }
        let cursor = PeerCursor(peer: clip.replicaID, epoch: clip.epoch, position: logged.last?.position ?? 0, lastSeen: now)
        let applied = try apply(events, advancing: cursor)
        try clip.write { txn in
            try txn.put(self.replicaID.bytes + Key.bigEndian(now.milliseconds), forKey: MetaKey.handedOff, in: clip.schema.meta)
        }
        report.sharesAdopted = live.count
        report.sharesEnded = ended.count
        report.eventsApplied = applied.applied
        report.eventsAlreadyHeld = applied.duplicates
        return report
    }
}
