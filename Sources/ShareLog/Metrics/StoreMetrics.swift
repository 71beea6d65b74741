import ShareMetrics

/// A store's state as metrics, read from one snapshot at each scrape
/// (`ShareStore.stats` and `peers`: O(due shares + peers)): its shares,
/// its log, its file and map, LMDB's reader table, and how far it has read
/// each peer's log (docs/OPERATIONS.md "Metrics").
///
/// `sharelog_store_readable` is 0 when the scrape's read failed; the other
/// values then keep what the last good read saw.
public final class StoreMetrics: Sendable {
    private let store: ShareStore
    private let readable: Gauge
    private let shares: Gauge
    private let awaitingRedaction: Gauge
    private let logEvents: Gauge
    private let logPosition: Gauge
    private let fileBytes: Gauge
    private let mapUsedBytes: Gauge
    private let mapBytes: Gauge
    private let readerSlotsUsed: Gauge
    private let readerSlots: Gauge
    private let peerPosition: Gauge
    private let peerLastSeen: Gauge

    /// Makes the store's families in `registry`, read before each scrape.
    public init(store: ShareStore, registry: MetricsRegistry) {
        self.store = store
        readable = registry.gauge("sharelog_store_readable", "1 when the last scrape could read the store, 0 when it could not.")
        shares = registry.gauge(
            "sharelog_shares", "Shares by state: live (their time is not up), due (time up, not swept yet), expired (swept or revoked, kept as tombstones).",
            labels: ["state"])
        awaitingRedaction = registry.gauge(
            "sharelog_cards_awaiting_redaction", "Log entries that still hold an ended share's card: the next compaction's work.")
        logEvents = registry.gauge("sharelog_log_events", "Entries in the store's log.")
        logPosition = registry.gauge(
            "sharelog_log_last_position", "The log position of the store's last entry; a peer's sharelog_peer_position of this replica trails it by its lag in events.")
        fileBytes = registry.gauge("sharelog_store_file_bytes", "The size of data.mdb.")
        mapUsedBytes = registry.gauge("sharelog_lmdb_map_used_bytes", "Bytes of LMDB's map in use, up to the last page written.")
        mapBytes = registry.gauge("sharelog_lmdb_map_size_bytes", "LMDB's map size; it grows as writes need it.")
        readerSlotsUsed = registry.gauge(
            "sharelog_lmdb_reader_slots_used", "Slots of LMDB's reader table taken so far by any process (freed slots are reused; the count never falls).")
        readerSlots = registry.gauge("sharelog_lmdb_reader_slots", "The size of LMDB's reader table.")
        peerPosition = registry.gauge(
            "sharelog_peer_position", "How far this store has read each peer's log (a log position of the peer's).", labels: ["peer"])
        peerLastSeen = registry.gauge(
            "sharelog_peer_last_seen_timestamp_seconds", "When this store last took events from each peer (Unix time, the store's clock).",
            labels: ["peer"])
        registry.beforeEachScrape { [self] in update() }
    }

    /// Whether the store can be read now: one read of its counts.
    public func canRead() -> Bool { (try? store.stats()) != nil }

    private func update() {
        guard let stats = try? store.stats(), let peers = try? store.peers() else {
            readable.set(0)
            return
        }
        readable.set(1)
        shares.set(Double(stats.live - stats.due), "live")
        shares.set(Double(stats.due), "due")
        shares.set(Double(stats.expired), "expired")
        awaitingRedaction.set(Double(stats.pendingRedactions))
        logEvents.set(Double(stats.events))
        logPosition.set(Double(stats.lastPosition))
        fileBytes.set(Double(stats.fileBytes))
        mapUsedBytes.set(Double(stats.usedBytes))
        mapBytes.set(Double(stats.mapBytes))
        readerSlotsUsed.set(Double(stats.readerSlotsUsed))
        readerSlots.set(Double(stats.readerSlots))
        peerPosition.replaceAll(Dictionary(uniqueKeysWithValues: peers.map { (["\($0.peer)"], Double($0.position)) }))
        peerLastSeen.replaceAll(Dictionary(uniqueKeysWithValues: peers.map { (["\($0.peer)"], Double($0.lastSeen.milliseconds) / 1000) }))
    }
}
