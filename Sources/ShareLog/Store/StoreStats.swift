/// A store's identity, counts and sizes.
public struct StoreStats: Sendable, Hashable {
    public let replicaID: ReplicaID
    public let epoch: Epoch
    /// Entries in the log.
    public let events: Int
    /// The log position of the last entry.
    public let lastPosition: UInt64
    /// Shares not yet expired in the projection (due ones included until swept).
    public let live: Int
    /// Expired shares (tombstones).
    public let expired: Int
    /// Live shares whose time is up: the next sweep's work.
    public let due: Int
    /// Log entries still holding an expired share's card: the next compaction's work.
    public let pendingRedactions: Int
    /// The size of data.mdb.
    public let fileBytes: Int
    /// Bytes of data.mdb in use (up to the last page written).
    public let usedBytes: Int
    /// The current LMDB map size.
    public let mapBytes: Int
    /// Slots of LMDB's reader table taken so far, by any process (a slot
    /// freed by its thread's end is reused, and the count never falls).
    public let readerSlotsUsed: Int
    /// The reader table's size: readers beyond it get `MDB_READERS_FULL`.
    public let readerSlots: Int
}
