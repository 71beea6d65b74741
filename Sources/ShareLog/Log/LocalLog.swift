import LMDB

/// Appends this replica's own events within one write transaction.
///
/// It reads the origin counter and the last log position once, appends
/// each event at the next position with `MDB_APPEND`, and writes the
/// counter back once in `finish`, so a batch of n events costs n appends
/// and two meta accesses, not 4n lookups. Event ids it makes are new by
/// construction; the projection's `eventIndex` insert refuses an id that
/// is already logged (a counter behind the log) as `corruptMeta`.
///
/// Valid only inside the transaction it was made in; `finish` must run
/// before that transaction commits.
struct LocalLog {
    private let schema: Schema
    private let replica: ReplicaID
    private var counter: UInt64
    private var position: UInt64
    private let startCounter: UInt64

    /// - Throws: `corruptMeta` for a damaged origin counter, `corruptKey`
    ///   for a damaged last log key.
    init(schema: Schema, replica: ReplicaID, in txn: borrowing WriteTransaction) throws {
        self.schema = schema
        self.replica = replica
        counter = try ShareProjection.counter(MetaKey.originSequence, schema: schema, in: txn)
        startCounter = counter
        position = try EventLog(schema: schema).lastPosition(in: txn)
    }

    /// Logs `kind` as this replica's next event; returns it and its position.
    mutating func append(_ kind: Event.Kind, in txn: borrowing WriteTransaction) throws -> (Event, UInt64) {
        guard counter < .max else { throw ShareLogError.corruptMeta("origin-sequence") }
        guard position < .max else {
            throw ShareLogError.corruptKey(
                database: "log", key: Key.sequence(position), reason: "the largest log position; no entry can follow it")
        }
        counter += 1
        position += 1
        let event = Event(id: EventID(origin: replica, counter: counter), kind: kind)
        try txn.put(EventCodec.encode(event), forKey: PackedKey(position: position), in: schema.log, flags: .append)
        return (event, position)
    }

    /// Records the origin counter of the last event appended.
    func finish(in txn: borrowing WriteTransaction) throws {
        guard counter != startCounter else { return }
        try txn.put(Key.bigEndian(counter), forKey: MetaKey.originSequence, in: schema.meta)
    }
}
