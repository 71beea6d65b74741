import LMDB

extension Verifier {
    /// Compares everything one window of record names implies: `shares`,
    /// `expiry` and `pendingRedactions`, and adds its shares to the
    /// implied counters.
    ///
    /// `shares` is keyed by record name, so the window reads only its range
    /// of it. `expiry` and `pendingRedactions` are not, so every window
    /// reads all of both and compares the entries of its names.
    mutating func compareShares(
        with window: FoldWindow<RecordName, ShareFold>, firstPass: Bool, in txn: borrowing ReadTransaction
    ) throws {
        try compareStates(with: window, in: txn)
        try compareExpiry(with: window, firstPass: firstPass, in: txn)
        try comparePendingRedactions(with: window, firstPass: firstPass, in: txn)
        for fold in window.values.values {
            if fold.hasEnded { impliedExpired += 1 } else if fold.creation != nil { impliedLive += 1 }
        }
    }

    private mutating func compareStates(
        with window: FoldWindow<RecordName, ShareFold>, in txn: borrowing ReadTransaction
    ) throws {
        let database = schema.shares
        try txn.scan(database, in: window.keyRange) { entry in
            countCompared()
            guard entry.key.count == 16, let fold = window.values[RecordName(bytes: entry.key)] else {
                record(Mismatch(database: database.name, key: Key.hex(entry.key), problem: Mismatch.notImplied))
                return .proceed
            }
            if !Self.equal(entry.value, fold.state.encoded()) {
                record(Mismatch(database: database.name, key: Key.hex(entry.key), problem: Mismatch.differs))
            }
            return .proceed
        }
        try expectStored(window.values.keys.lazy.map(\.keyBytes), in: database, txn)
    }

    private mutating func compareExpiry(
        with window: FoldWindow<RecordName, ShareFold>, firstPass: Bool, in txn: borrowing ReadTransaction
    ) throws {
        let database = schema.expiry
        try txn.scan(database) { entry in
            let owner = entry.key.count == 24 ? RecordName(bytes: entry.key[8...]) : nil
            guard owner.map(window.contains) ?? firstPass else { return .proceed }
            countCompared()
            guard let owner, let creation = window.values[owner]?.pendingCreation,
                  Self.equal(entry.key, Key.expiry(creation.expiresAt, owner))
            else {
                record(Mismatch(database: database.name, key: Key.hex(entry.key), problem: Mismatch.notImplied))
                return .proceed
            }
            if !Self.equal(entry.value, Key.pendingValue(creation)) {
                record(Mismatch(database: database.name, key: Key.hex(entry.key), problem: Mismatch.differs))
            }
            return .proceed
        }
        try expectStored(
            window.values.lazy.compactMap { name, fold in fold.pendingCreation.map { Key.expiry($0.expiresAt, name) } },
            in: database, txn)
    }

    private mutating func comparePendingRedactions(
        with window: FoldWindow<RecordName, ShareFold>, firstPass: Bool, in txn: borrowing ReadTransaction
    ) throws {
        let database = schema.pendingRedactions
        try txn.scan(database) { entry in
            let sequence = Key.integer(entry.key, as: UInt64.self)
            // After the first pass, an entry whose bytes name no card of
            // this window's is another window's (or the first pass's): it
            // is decoded in full only when it may be this one's.
            if let sequence, !firstPass {
                let holder = try txn.withValue(forKey: Key.sequence(sequence), in: schema.log, FoldedEvent.cardHolder)
                guard let holder = holder.flatMap({ $0 }), window.contains(holder) else { return .proceed }
            }
            let owner = try sequence.flatMap { try recordName(ofCreationHoldingCardAt: $0, in: txn) }
            guard owner.map(window.contains) ?? firstPass else { return .proceed }
            countCompared()
            guard let owner, let sequence, window.values[owner]?.pendingRedactions.contains(sequence) == true else {
                record(Mismatch(database: database.name, key: Key.hex(entry.key), problem: Mismatch.notImplied))
                return .proceed
            }
            if !entry.value.isEmpty {
                record(Mismatch(database: database.name, key: Key.hex(entry.key), problem: Mismatch.differs))
            }
            return .proceed
        }
        try expectStored(window.values.values.lazy.flatMap { $0.pendingRedactions.lazy.map(Key.sequence) }, in: database, txn)
    }

    /// The record name of the `shareCreated` at `sequence` when that entry
    /// holds its card; nil for any other entry, or none.
    private func recordName(ofCreationHoldingCardAt sequence: UInt64, in txn: borrowing ReadTransaction) throws -> RecordName? {
        let event = try txn.withValue(forKey: Key.sequence(sequence), in: schema.log) { bytes in try? EventCodec.decode(bytes) } ?? nil
        guard case .shareCreated(let created)? = event?.kind, created.vCard != nil else { return nil }
        return created.recordName
    }
}
