import LMDB

/// The App Clip's lifecycle (docs/SYNC.md "The clip's lifecycle"): the
/// share it showed last, for a relaunch without a link, and the handoff of
/// what it holds to the full app, exactly once.
extension ShareStore {
    /// Remembers `name` as the share this store showed last, durably.
    public func recordShown(_ name: RecordName) throws(ShareLogError) {
        try write { txn in try txn.put(name.bytes, forKey: MetaKey.lastShown, in: self.schema.meta) }
    }

    /// The share this store showed last (`recordShown`), or nil.
    ///
    /// - Throws: `corruptMeta("last-shown")` for a value that is not a record name.
    public func lastShown() throws(ShareLogError) -> RecordName? {
        let stored = try read { txn in
            try txn.withValue(forKey: MetaKey.lastShown, in: schema.meta) { $0.count == 16 ? RecordName(bytes: $0) : nil }
        }
        guard let stored else { return nil }
        guard let name = stored else { throw ShareLogError.corruptMeta("last-shown") }
        return name
    }

    /// The replica this store was handed off to, and when; nil before.
    ///
    /// - Throws: `corruptMeta("handed-off")` for a value that is not 24 bytes.
    public func handedOff() throws(ShareLogError) -> (to: ReplicaID, at: Timestamp)? {
        let stored = try read { txn in try txn.value(forKey: MetaKey.handedOff, in: schema.meta) }
        return try stored.map(Self.handoffMark)
    }

    /// Why this store is not a clip's store, or nil when it is one.
    ///
    /// A clip's store (docs/CLIP.md, "Handoff") is one that:
    /// 1. made no event of its own: `origin-sequence` is absent (no share
    ///    was created or revoked there), so everything it holds came from a
    ///    replica that keeps it, and the ended shares a handoff leaves
    ///    behind are lost nowhere;
    /// 2. pulled nothing as a main replica: `cursors` is empty (a clip's
    ///    fetch, over HTTPS or a clip sync session, records no cursor;
    ///    `sync` as main and `relay` do);
    /// 3. showed a share through `clip open`: `meta` holds `last-shown`,
    ///    which `clip open` writes whenever it shows a share, however it
    ///    fetched it (or answered from the store, offline).
    ///
    /// The first condition that fails is the answer. Reads only, in one
    /// read transaction: valid on a store opened read-only.
    ///
    /// - Throws: `corruptMeta("origin-sequence")` for a damaged counter.
    public func clipStoreRefusal() throws(ShareLogError) -> HandoffRefusal? {
        let (made, pulled, shown) = try read { txn in
            (
                try ShareProjection.counter(MetaKey.originSequence, schema: schema, in: txn),
                try txn.scan(schema.cursors) { _ in .stop } > 0,
                try txn.contains(MetaKey.lastShown, in: schema.meta)
            )
        }
        if made > 0 { return .madeEventsOfItsOwn(path: path, made: made) }
        if pulled { return .syncedAsMain(path: path) }
        if !shown { return .neverShownAShare(path: path) }
        return nil
    }

    /// Adopts what the clip store `clip` holds, exactly once: the events of
    /// every share live there at `time` (default: now) are applied here,
    /// with a cursor on the clip, in one transaction; then the clip is
    /// marked as handed off to this store (`handed-off`: this store's
    /// replica id and `time`). Shares that ended are not adopted. A second
    /// run, once the mark names this store, does nothing; a run cut short
    /// between the two steps is completed by the next (the events are
    /// there already, and only the mark is written).
    ///
    /// Refuses, before it writes anything to either store, a store that is
    /// not a clip's (`clipStoreRefusal()`), and a clip whose mark names
    /// another store: a clip is handed off to one store only. When another
    /// store's handoff marks the clip between this one's two steps, this
    /// store keeps the events it adopted (copies of the clip's, as any
    /// replica may hold), the mark stays the other store's, and this throws
    /// `handedOffElsewhere`.
    ///
    /// `clip` must be open for writing (the mark is written to it). A clip
    /// holds a handful of shares, so its whole log is read at once.
    ///
    /// - Throws: `handoffRefused` with the `HandoffRefusal` as above;
    ///   `storage` and the `corrupt…` cases as any write.
    public func adopt(from clip: ShareStore, at time: Timestamp? = nil) throws(ShareLogError) -> HandoffReport {
        let now = time ?? clock.now()
        var report = HandoffReport()
        if let refusal = try clip.clipStoreRefusal() { throw .handoffRefused(refusal) }
        if let mark = try clip.handedOff() {
            guard mark.to == replicaID else { throw .handoffRefused(.handedOffElsewhere(path: clip.path, to: mark.to, at: mark.at)) }
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
        let target = replicaID
        let clipPath = clip.path
        try clip.write { txn in
            // Checked again under the clip's write lock: a mark another
            // store's handoff wrote meanwhile is never overwritten, and one
            // naming this store keeps its first time.
            if let stored = try txn.value(forKey: MetaKey.handedOff, in: clip.schema.meta) {
                let mark = try Self.handoffMark(stored)
                guard mark.to == target else {
                    throw ShareLogError.handoffRefused(.handedOffElsewhere(path: clipPath, to: mark.to, at: mark.at))
                }
                return
            }
            try txn.put(target.bytes + Key.bigEndian(now.milliseconds), forKey: MetaKey.handedOff, in: clip.schema.meta)
        }
        report.sharesAdopted = live.count
        report.sharesEnded = ended.count
        report.eventsApplied = applied.applied
        report.eventsAlreadyHeld = applied.duplicates
        return report
    }

    /// Decodes a `handed-off` value: a replica id, then milliseconds.
    ///
    /// - Throws: `corruptMeta("handed-off")` for a value that is not 24 bytes.
    private static func handoffMark(_ stored: [UInt8]) throws(ShareLogError) -> (to: ReplicaID, at: Timestamp) {
        guard stored.count == 24, let milliseconds = Key.integer(stored.withUnsafeBytes { UnsafeRawBufferPointer(rebasing: $0[16...]) }, as: Int64.self)
        else { throw .corruptMeta("handed-off") }
        return (ReplicaID(bytes: stored[..<16]), Timestamp(milliseconds: milliseconds))
    }
}
