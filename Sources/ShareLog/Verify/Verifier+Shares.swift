import LMDB

extension Verifier {
    /// Compares everything one window of record names implies: `shares`,
    /// `expiry` and `pendingRedactions`, and adds its shares to the
    /// implied counters.
    ///
    /// `shares` is keyed by record name, so the window walks its range of
    /// it beside its sorted groups, folding each name once from the log
    /// entries the window names (`ShareFold`), and looks up the `expiry`
    /// and `pendingRedactions` entries each name implies. Those two are not
    /// keyed by name, so every window then reads all of both to count the
    /// entries its names own: more owned than the lookups found means a
    /// stored entry nothing implies, which a second read names.
    ///
    /// Mismatches come per database: `shares` in key order; then for
    /// `expiry`, and then `pendingRedactions`, the implied entries missing
    /// or differing (in key order, the first 100 of a window), then the
    /// stored entries nothing implies, in key order.
    mutating func compareShares(with window: NameWindow, firstPass: Bool, in txn: borrowing ReadTransaction) throws {
        var expiry = ImpliedLookups(database: schema.expiry.name)
        var redactions = ImpliedLookups(database: schema.pendingRedactions.name)
        try compareStates(with: window, expiry: &expiry, redactions: &redactions, in: txn)
        for (lookups, database) in [(expiry, schema.expiry), (redactions, schema.pendingRedactions)] {
            let (mismatches, unlisted) = lookups.mismatches.sorted()
            for mismatch in mismatches { record(mismatch) }
            countUnlisted(unlisted)
            try findUnimplied(in: database, of: window, found: lookups.found, firstPass: firstPass, in: txn)
        }
    }

    /// The lookups of one derived database's entries that a window's
    /// names imply.
    struct ImpliedLookups {
        /// Implied entries found stored, whatever their value.
        var found = 0
        var mismatches: MismatchBuffer

        init(database: String) { mismatches = MismatchBuffer(database: database) }
    }

    /// Walks `shares` over the window's range beside its groups: a stored
    /// state must equal its name's fold, a name must have one (else
    /// missing), and a stored key must be a name of the window (else not
    /// implied). Each name's `expiry` and `pendingRedactions` entries are
    /// looked up on the way.
    private mutating func compareStates(
        with window: NameWindow, expiry: inout ImpliedLookups, redactions: inout ImpliedLookups,
        in txn: borrowing ReadTransaction
    ) throws {
        let database = schema.shares
        var groups = window.groups
        var group = groups.next()
        try txn.scan(database, in: window.keyRange) { entry in
            countCompared()
            guard let stored = RecordName(keyBytes: entry.key) else {
                record(Mismatch(database: database.name, key: Key.hex(entry.key), problem: Mismatch.notImplied))
                return .proceed
            }
            while let current = group, RecordName.precedes(current.name, stored) {
                try settle(current, storedState: nil, expiry: &expiry, redactions: &redactions, in: txn)
                group = groups.next()
            }
            if let current = group, current.name == stored {
                try settle(current, storedState: entry.value, expiry: &expiry, redactions: &redactions, in: txn)
                group = groups.next()
            } else {
                record(Mismatch(database: database.name, key: Key.hex(entry.key), problem: Mismatch.notImplied))
            }
            return .proceed
        }
        while let current = group {
            try settle(current, storedState: nil, expiry: &expiry, redactions: &redactions, in: txn)
            group = groups.next()
        }
    }

    /// Compares one name's fold with its stored state (nil: none stored),
    /// counts its share, and looks up the entries it implies.
    private mutating func settle(
        _ group: NameWindow.Group, storedState: UnsafeRawBufferPointer?,
        expiry: inout ImpliedLookups, redactions: inout ImpliedLookups, in txn: borrowing ReadTransaction
    ) throws {
        let fold = try self.fold(group, in: txn)
        let shares = schema.shares.name
        if let storedState {
            if !Self.equal(storedState, fold.state.encoded()) {
                record(Mismatch(database: shares, key: Key.hex(group.name.keyBytes), problem: Mismatch.differs))
            }
        } else {
            countCompared()
            record(Mismatch(database: shares, key: Key.hex(group.name.keyBytes), problem: Mismatch.missing))
        }
        if fold.hasEnded { impliedExpired += 1 } else if fold.creation != nil { impliedLive += 1 }

        if let creation = fold.pendingCreation {
            let key = PackedKey(expiresAt: creation.expiresAt, name: group.name)
            let value = PackedKey(pendingValue: creation)
            let equal = try txn.withValue(forKey: key, in: schema.expiry) { stored in value.withUnsafeBytes { stored.elementsEqual($0) } }
            note(equal, key: key, in: &expiry)
        }
        for position in fold.pendingRedactions {
            let key = PackedKey(position: position)
            note(try txn.withValue(forKey: key, in: schema.pendingRedactions) { $0.isEmpty }, key: key, in: &redactions)
        }
    }

    /// Notes the lookup of one implied entry: nil when it is missing,
    /// false when it is stored with another value.
    private mutating func note(_ equal: Bool?, key: PackedKey, in lookups: inout ImpliedLookups) {
        guard let equal else {
            countCompared()
            lookups.mismatches.add(key: key.bytes, problem: Mismatch.missing)
            return
        }
        lookups.found += 1
        if !equal { lookups.mismatches.add(key: key.bytes, problem: Mismatch.differs) }
    }

    /// The fold of one name's logged events, read from the log in place.
    private func fold(_ group: NameWindow.Group, in txn: borrowing ReadTransaction) throws -> ShareFold {
        var fold = ShareFold()
        for position in group.positions {
            guard let event = try txn.withValue(forKey: PackedKey(position: position), in: schema.log, FoldedEvent.init(decoded:)) else {
                preconditionFailure("a name window holds positions of its snapshot's log")
            }
            switch event.kind {
            case let .created(_, createdAt, expiresAt, holdsCard):
                fold.add(creationAt: position, id: event.id, createdAt: createdAt, expiresAt: expiresAt, holdsCard: holdsCard)
            case let .expired(_, at, reason):
                fold.add(endAt: at, id: event.id, reason: reason)
            case .unknown:
                preconditionFailure("a name window holds creations and expirations only")
            }
        }
        return fold
    }

    /// Counts the entries of `database` (`expiry` or `pendingRedactions`)
    /// the window's names own, comparing each once; when more are owned
    /// than the lookups found, reads it again to report each owned entry
    /// its name's fold does not imply. The first pass reports the entries
    /// no name owns.
    private mutating func findUnimplied(
        in database: Database, of window: NameWindow, found: Int, firstPass: Bool, in txn: borrowing ReadTransaction
    ) throws {
        var owned = 0
        try txn.scan(database) { entry in
            switch try owner(of: entry.key, in: database, in: txn) {
            case let name? where window.contains(name):
                countCompared()
                owned += 1
            case nil where firstPass:
                countCompared()
                record(Mismatch(database: database.name, key: Key.hex(entry.key), problem: Mismatch.notImplied))
            default:
                break
            }
            return .proceed
        }
        guard owned != found else { return }
        try txn.scan(database) { entry in
            if let name = try owner(of: entry.key, in: database, in: txn), window.contains(name),
               try !implies(entry.key, of: database, name: name, window: window, in: txn) {
                record(Mismatch(database: database.name, key: Key.hex(entry.key), problem: Mismatch.notImplied))
            }
            return .proceed
        }
    }

    /// The name owning an entry of `expiry` (the name in its last 16 key
    /// bytes) or of `pendingRedactions` (the name of the creation holding
    /// its card at the log position the key names); nil for a key no name
    /// owns.
    private func owner(of key: UnsafeRawBufferPointer, in database: Database, in txn: borrowing ReadTransaction) throws -> RecordName? {
        if database == schema.expiry {
            return key.count == 24 ? RecordName(bytes: key[8...]) : nil
        }
        guard let position = Key.integer(key, as: UInt64.self), !isCorrupt(position) else { return nil }
        return try txn.withValue(forKey: PackedKey(position: position), in: schema.log, FoldedEvent.cardHolder) ?? nil
    }

    /// Whether `name`'s fold implies the stored `key` of `database`.
    private func implies(
        _ key: UnsafeRawBufferPointer, of database: Database, name: RecordName, window: NameWindow, in txn: borrowing ReadTransaction
    ) throws -> Bool {
        guard let group = window.group(of: name) else { return false }
        let fold = try fold(group, in: txn)
        if database == schema.expiry {
            guard let creation = fold.pendingCreation else { return false }
            return PackedKey(expiresAt: creation.expiresAt, name: name).withUnsafeBytes { key.elementsEqual($0) }
        }
        return Key.integer(key, as: UInt64.self).map(fold.pendingRedactions.contains) ?? false
    }
}
