/// A bounded run of this replica's log as a peer receives it
/// (`ShareStore.replicationBatch(after:inEpoch:maxBytes:excludingOrigin:)`).
public struct ReplicationBatch: Sendable {
    /// The events, in log order. A creation whose card no answer needs (its
    /// share ended) comes without its card; when that share was revoked,
    /// its revocation follows in the same batch even if the log holds it
    /// later, so the peer never reads the share without its end's reason.
    public let events: [Event]
    /// The log position the peer's cursor advances to once it has applied
    /// `events`: the last entry read, which may be past the last event
    /// sent when events of the excluded origin were skipped; and
    /// `lastPosition` when nothing follows in the log (whose last positions
    /// may have been trimmed away).
    public let through: UInt64
    /// The log's last position when the batch was read: the peer has
    /// caught up when `through` reaches it.
    public let lastPosition: UInt64
    /// The encoded size of `events`.
    public let bytes: Int
    /// The store's epoch when the batch was read: the epoch the peer's
    /// cursor belongs to from now on.
    public let epoch: Epoch

    /// A batch with these fields; `ShareStore.replicationBatch` makes them
    /// from a store, and a test or another transport may make its own.
    public init(events: [Event], through: UInt64, lastPosition: UInt64, bytes: Int, epoch: Epoch) {
        self.events = events
        self.through = through
        self.lastPosition = lastPosition
        self.bytes = bytes
        self.epoch = epoch
    }
}
