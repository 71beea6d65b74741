import LMDB

extension Verifier {
    /// Checks `eventIndex` for the log entry at `sequence`, whose id is
    /// `id`, when the suspect window's range holds `id`.
    ///
    /// `eventIndex` maps each logged id to the last log position holding
    /// it. An entry whose id's index entry names it needs nothing kept:
    /// either it is that last position, or a later entry of the same id
    /// finds the index entry naming another position. Any other id is a
    /// suspect, kept with the last position holding it so far, for
    /// `compareEventIndex` to compare; a suspect's later entries move it on.
    /// A consistent store has no suspects but ids logged more than once.
    ///
    /// Cost: one `eventIndex` lookup per log entry, in the first pass (and
    /// in a later one only when the suspects outgrew their window).
    func checkIndexEntry(
        of id: EventID, at sequence: UInt64, suspects: inout FoldWindow<EventID, UInt64>, in txn: borrowing ReadTransaction
    ) throws {
        guard suspects.contains(id) else { return }
        let named = try txn.withValue(forKey: PackedKey(event: id), in: schema.eventIndex) { Key.integer($0, as: UInt64.self) }
        if named == .some(sequence) {
            suspects.refold(id) { $0 = sequence }
        } else {
            suspects.fold(id, initial: sequence) { $0 = sequence }
        }
    }

    /// Compares `eventIndex` over the suspect window's range of event ids,
    /// reporting in key order.
    ///
    /// A suspect's stored entry must name the last position holding it,
    /// and a suspect with none is missing. Any other stored entry is
    /// implied exactly when it names a log entry that decoded with its id:
    /// an id logged anywhere else would have been a suspect.
    mutating func compareEventIndex(with suspects: FoldWindow<EventID, UInt64>, in txn: borrowing ReadTransaction) throws {
        let database = schema.eventIndex
        // The suspects in key order, to report the missing ones in place.
        let ordered = suspects.values.keys.sorted(by: EventID.precedes)
        var next = ordered.startIndex
        try txn.scan(database, in: suspects.keyRange) { entry in
            while next < ordered.endIndex, ordered[next].keyBytes.lexicographicallyPrecedes(entry.key) {
                reportMissing(ordered[next], in: database)
                next += 1
            }
            countCompared()
            guard let id = EventID(keyBytes: entry.key) else {
                record(Mismatch(database: database.name, key: Key.hex(entry.key), problem: Mismatch.notImplied))
                return .proceed
            }
            if let last = suspects.values[id] {
                next += 1
                if !Self.equal(entry.value, Key.sequence(last)) {
                    record(Mismatch(database: database.name, key: Key.hex(entry.key), problem: Mismatch.differs))
                }
            } else if try !logs(id, at: entry.value, in: txn) {
                record(Mismatch(database: database.name, key: Key.hex(entry.key), problem: Mismatch.notImplied))
            }
            return .proceed
        }
        for id in ordered[next...] { reportMissing(id, in: database) }
    }

    private mutating func reportMissing(_ id: EventID, in database: Database) {
        countCompared()
        record(Mismatch(database: database.name, key: Key.hex(id.keyBytes), problem: Mismatch.missing))
    }

    /// True when `value`, an `eventIndex` value, is the 8-byte position of
    /// a log entry that decoded, with the id `id`.
    private func logs(_ id: EventID, at value: UnsafeRawBufferPointer, in txn: borrowing ReadTransaction) throws -> Bool {
        guard let position = Key.integer(value, as: UInt64.self), !isCorrupt(position) else { return false }
        return try txn.withValue(forKey: PackedKey(position: position), in: schema.log) { FoldedEvent(decoded: $0).id == id } ?? false
    }

    /// True when the first pass found the log entry at `position` corrupt
    /// (`report.corruptEvents`, in log order); O(log n).
    func isCorrupt(_ position: UInt64) -> Bool {
        let corrupt = report.corruptEvents
        var low = corrupt.startIndex, high = corrupt.endIndex
        while low < high {
            let middle = low + (high - low) / 2
            if corrupt[middle].position < position { low = middle + 1 } else { high = middle }
        }
        return low < corrupt.endIndex && corrupt[low].position == position
    }
}
