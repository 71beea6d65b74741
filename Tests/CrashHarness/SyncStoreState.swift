import ShareLog

/// One side of the pair as read at one moment through the runner's own
/// handle: its identity, its log's event ids by position, and its cursors.
struct SyncStoreState {
    let replica: ReplicaID
    let epoch: Epoch
    let lastPosition: UInt64
    /// Every event id in the log, with its log position.
    let positions: [EventID: UInt64]
    /// Its cursor of the other side, if it has pulled from it.
    let cursorOfPeer: PeerCursor?

    /// Reads `store`, and its cursor of `peer` when given.
    init(_ store: ShareStore, peer: ReplicaID?) throws {
        replica = store.replicaID
        epoch = store.epoch
        var positions: [EventID: UInt64] = [:]
        var after: UInt64 = 0
        while case let entries = try store.events(after: after), !entries.isEmpty {
            for entry in entries { positions[entry.event.id] = entry.position }
            after = entries[entries.count - 1].position
        }
        self.positions = positions
        lastPosition = try store.lastPosition()
        cursorOfPeer = try peer.flatMap { try store.cursor(of: $0) }
    }

    /// Event ids this side holds and `other` lacks.
    func missing(from other: SyncStoreState) -> [EventID] {
        positions.keys.filter { other.positions[$0] == nil }.sorted()
    }
}
