import LMDB

extension Verifier {
    /// Compares everything one window of record names implies: `shares`,
    /// `expiry`, `recordCreates` and `pendingRedactions`, and adds its
    /// shares to the implied counters.
    ///
    /// `shares` and `recordCreates` are keyed by record name first, so the
    /// window reads only its range of them. `expiry` and
    /// `pendingRedactions` are not, so every window reads all of both and
    /// compares the entries of its names.
    mutating func compareShares(
        with window: FoldWindow<RecordName, ShareFold>, firstPass: Bool, in txn: borrowing ReadTransaction
    ) throws {
        try compareStates(with: window, in: txn)
        try compareExpiry(with: window, firstPass: firstPass, in: txn)
        try compareRecordCreates(with: window, in: txn)
        try comparePendingRedactions(with: window, firstPass: firstPass, in: txn)
        for fold in window.values.values {
            if fold.expiry != nil { impliedExpired += 1 } else if fold.creation != nil { impliedLive += 1 }
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
            if try !Self.equal(entry.value, impliedState(of: fold, in: txn).encoded()) {
                record(Mismatch(database: database.name, key: Key.hex(entry.key), problem: Mismatch.differs))
            }
            return .proceed
        }
        try expectStored(window.values.keys.lazy.map(\.keyBytes), in: database, txn)
    }

    /// The `shares` value the log implies. A live share's card is read
    /// from the log entry of its winning creation, in this snapshot.
    private func impliedState(of fold: ShareFold, in txn: borrowing ReadTransaction) throws -> ShareState {
        guard fold.liveCreation != nil, fold.creationHoldsCard else { return fold.state(card: nil) }
        guard case .shareCreated(let created)? = try EventLog(schema: schema).event(at: fold.creationSequence, in: txn)?.kind else {
            // The fold read a creation there in this same snapshot.
            return fold.state(card: nil)
        }
        return fold.state(card: created.vCard)
    }

    private mutating func compareExpiry(
        with window: FoldWindow<RecordName, ShareFold>, firstPass: Bool, in txn: borrowing ReadTransaction
    ) throws {
        let database = schema.expiry
        try txn.scan(database) { entry in
            let owner = entry.key.count == 24 ? RecordName(bytes: entry.key[8...]) : nil
            guard owner.map(window.contains) ?? firstPass else { return .proceed }
            countCompared()
            guard let owner, let creation = window.values[owner]?.liveCreation,
                  Self.equal(entry.key, Key.expiry(creation.expiresAt, owner))
            else {
                record(Mismatch(database: database.name, key: Key.hex(entry.key), problem: Mismatch.notImplied))
                return .proceed
            }
            if !entry.value.isEmpty {
                record(Mismatch(database: database.name, key: Key.hex(entry.key), problem: Mismatch.differs))
            }
            return .proceed
        }
        try expectStored(
            window.values.lazy.compactMap { name, fold in fold.liveCreation.map { Key.expiry($0.expiresAt, name) } },
            in: database, txn)
    }

    private mutating func compareRecordCreates(
        with window: FoldWindow<RecordName, ShareFold>, in txn: borrowing ReadTransaction
    ) throws {
        let database = schema.recordCreates
        try txn.scan(database, in: window.keyRange) { entry in
            countCompared()
            guard entry.key.count == 24, let fold = window.values[RecordName(bytes: entry.key[..<16])],
                  let sequence = Key.integer(UnsafeRawBufferPointer(rebasing: entry.key[16...]), as: UInt64.self),
                  let creation = fold.creations.first(where: { $0.sequence == sequence })
            else {
                record(Mismatch(database: database.name, key: Key.hex(entry.key), problem: Mismatch.notImplied))
                return .proceed
            }
            if !Self.equal(entry.value, [creation.holdsCard ? 1 : 0]) {
                record(Mismatch(database: database.name, key: Key.hex(entry.key), problem: Mismatch.differs))
            }
            return .proceed
        }
        try expectStored(
            window.values.lazy.flatMap { name, fold in fold.creations.lazy.map { Key.recordCreate(name, $0.sequence) } },
            in: database, txn)
    }

    private mutating func comparePendingRedactions(
        with window: FoldWindow<RecordName, ShareFold>, firstPass: Bool, in txn: borrowing ReadTransaction
    ) throws {
        let database = schema.pendingRedactions
        try txn.scan(database) { entry in
            let sequence = Key.integer(entry.key, as: UInt64.self)
            let owner = try sequence.flatMap { try recordName(ofCreationHoldingCardAt: $0, in: txn) }
            guard owner.map(window.contains) ?? firstPass else { return .proceed }
            countCompared()
            guard let owner, window.values[owner]?.expiry != nil else {
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
