import LMDB

/// Appends this replica's own events within one write transaction.
///
/// It reads the replica id, the origin counter and the last log position
/// once (the id from `meta`, since `renewIdentity()` may change it), appends
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
    init(schema: Schema, in txn: borrowing WriteTransaction) throws {
        self.schema = schema
        let stored = try txn.withValue(forKey: MetaKey.replica, in: schema.meta) { $0.count == 16 ? ReplicaID(bytes: $0) : nil }
        guard let replica = stored ?? nil else { throw ShareLogError.corruptMeta("replica") }
        self.replica = replica
        counter = try ShareProjection.counter(MetaKey.originSequence, schema: schema, in: txn)
        startCounter = counter
        position = try EventLog(schema: schema).lastPosition(in: txn)
    }

    /// Logs `kind` as this replica's next event; returns it and its position.
    mutating func append(_ kind: Event.Kind, in txn: borrowing WriteTransaction) throws -> (Event, UInt64) {
        guard counter < .max else { throw ShareLogError.corruptMeta("origin-sequence") }
        counter += 1
        let event = Event(id: EventID(origin: replica, counter: counter), kind: kind)
        return (event, try append(identified: event, in: txn))
    }

    /// Logs `event`, whose id this replica did not count (a TTL end, whose
    /// id is the same on every replica); returns its position.
    mutating func append(identified event: Event, in txn: borrowing WriteTransaction) throws -> UInt64 {
        guard position < .max else {
            throw ShareLogError.corruptKey(
                database: "log", key: Key.sequence(position), reason: "the largest log position; no entry can follow it")
        }
        position += 1
        // Encoded straight into the page (`MDB_RESERVE`): the card is
        // copied once, as the C baseline does.
        try txn.put(
            reservingCount: EventCodec.encodedSize(of: event), forKey: PackedKey(position: position), in: schema.log, flags: .append
        ) { EventCodec.encode(event, into: $0) }
        return position
    }

    /// Records the origin counter of the last event appended.
    func finish(in txn: borrowing WriteTransaction) throws {
        guard counter != startCounter else { return }
        try txn.put(Key.bigEndian(counter), forKey: MetaKey.originSequence, in: schema.meta)
    }
}
