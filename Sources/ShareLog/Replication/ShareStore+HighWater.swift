import LMDB
import SharePrimitives

/// What the high-water file holds: the highest log position of `epoch`
/// that may have left the store.
struct HighWaterMark: Sendable, Equatable {
    let epoch: Epoch
    let position: UInt64

    func covers(_ position: UInt64, of epoch: Epoch) -> Bool { self.epoch == epoch && self.position >= position }
}

/// The sign of a restore that overwrote `data.mdb` in place (docs/SYNC.md
/// "Identity"). Such a restore keeps the inodes and the directory's ctime,
/// so the home check misses it, and the store's log goes back: new events
/// would land at positions a follower's cursor has passed, under ids its
/// peers hold. So before a position or an event of this store's epoch
/// leaves it (a sync batch, a snapshot, a clip's events), the high-water
/// file beside `data.mdb` records it, durably; an open whose log ends
/// before the recorded position renews the store's identity first.
///
/// The write path never touches the file: a commit costs nothing more. A
/// read that takes positions past the recorded one out of the store
/// raises it to the log's end at that moment, one `pwrite` and
/// `fdatasync` that every read up to that end then skips (like group
/// commit, a busy follower pays one sync per wake-up, not one per event).
extension ShareStore {
    /// Records in the high-water file, durably, that positions up to
    /// `position` of this store's current epoch (and so every event of
    /// its own logged up to there) may leave it, before they do.
    ///
    /// `replicationBatch`, `snapshotBatch` and `events(of:)` do it
    /// themselves; call this before sending what another read gave
    /// (`events(after:)`, `lastPosition()`) to another replica or a stream,
    /// so that restoring `data.mdb` in place to a copy older than it
    /// renews this store's identity when it next opens. Costs nothing when
    /// the file already covers `position`. Does nothing on a store opened
    /// read-only, which records nothing.
    ///
    /// - Throws: `ShareLogError.storage` when the file cannot be written
    ///   (nothing may leave then).
    public func raiseHighWater(through position: UInt64) throws(ShareLogError) {
        let epoch = try read { txn in try storedEpoch(in: txn) }
        try raiseHighWater(to: position, of: epoch)
    }

    /// `raiseHighWater(through:)` for a read of `epoch` that saw `position`.
    func raiseHighWater(to position: UInt64, of epoch: Epoch) throws(ShareLogError) {
        guard !options.environment.readOnly else { return }
        if highWater.withLock({ $0?.covers(position, of: epoch) ?? false }) { return }
        try Self.storage { try raiseHighWaterLocked(to: position, of: epoch) }
    }

    /// `raiseHighWater(to:of:)` once a read of the mark found it short.
    private func raiseHighWaterLocked(to position: UInt64, of epoch: Epoch) throws {
        try highWaterRaise.withLock { _ in
            if highWater.withLock({ $0?.covers(position, of: epoch) ?? false }) { return }
            let mark = try HighWaterFile.locked(in: path, durable: options.environment.durability != .noSync) { file in
                // The file first, then the log: the log's end read after
                // it is at least what any process recorded.
                let (contents, _) = try file.read()
                let (current, end) = try read { txn in (try storedEpoch(in: txn), try log.lastPosition(in: txn)) }
                // A read of an epoch since renewed needs nothing of its
                // own: a data file of that epoch meets a file of another
                // one, and renews (`settleHighWater`).
                let needed = current == epoch ? position : 0
                if case .record(let record) = contents, record.epoch == current, record.position >= needed {
                    return HighWaterMark(epoch: current, position: record.position)
                }
                var target = max(end, needed)
                if case .record(let record) = contents, record.epoch == current { target = max(target, record.position) }
                try file.write(epoch: current, position: target)
                return HighWaterMark(epoch: current, position: target)
            }
            highWater.withLock { $0 = mark }
        }
    }

    /// At open, with the home check done (`renewed`: it renewed the
    /// identity): reads the high-water file, then the log's end and epoch.
    /// A log that ends before the recorded position of its own epoch was
    /// restored in place, and a file that records another epoch (or none
    /// it can read) cannot vouch for this data file: either way the store
    /// takes a new replica id and epoch, before it writes anything else.
    /// Then the file records the epoch the store goes on with.
    static func settleHighWater(
        at path: String, environment: Environment, schema: Schema, home: [UInt8], durable: Bool, renewed: Bool
    ) throws -> (renewal: IdentityRenewal?, mark: HighWaterMark) {
        try HighWaterFile.locked(in: path, durable: durable) { file in
            let (contents, _) = try file.read()
            let (epoch, end) = try environment.read { txn -> (Epoch, UInt64) in
                let epoch = try txn.withValue(forKey: MetaKey.epoch, in: schema.meta) { $0.count == 16 ? Epoch(bytes: $0) : nil }
                guard let epoch = epoch ?? nil else { throw ShareLogError.corruptMeta("epoch") }
                return (epoch, try EventLog(schema: schema).lastPosition(in: txn))
            }
            var reason: IdentityRenewal.Reason?
            switch contents {
            case .record(let record) where renewed || record.epoch == nil:
                break
            case .record(let record) where record.epoch == epoch:
                guard end < record.position else { return (nil, HighWaterMark(epoch: epoch, position: record.position)) }
                reason = .restoredInPlace(reached: record.position, logEnd: end)
            case .record, .unreadable:
                reason = .highWaterMismatch
            }
            let renewal = try reason.map { reason in
                try environment.write { txn in try renew(reason: reason, home: home, schema: schema, in: txn) }
            }
            let current = renewal?.epoch ?? epoch
            try file.write(epoch: current, position: end)
            return (renewal, HighWaterMark(epoch: current, position: end))
        }
    }
}
