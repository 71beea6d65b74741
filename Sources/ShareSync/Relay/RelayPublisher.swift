import ShareLog

/// Publishes this replica's own events to the stream, in log order, and
/// records how far the stream has acknowledged them.
///
/// The cursor (`RelayStreamIdentity.published`) is committed only after
/// JetStream acknowledged every message up to it. A crash in between
/// publishes those messages again on restart; their message ids (the event
/// ids) make JetStream acknowledge them as duplicates within its duplicate
/// window, and every replica skips a held event by id after it.
///
/// Only events this replica made (its origin) go out: what it applied from
/// the stream or from a direct-sync peer is its origin's to publish, and
/// TTL ends are made by every replica's own sweep (docs/ENGINE.md "One TTL
/// end per share"). A creation goes out with its card only while its share
/// is live here, sealed (`RelayCodec`); otherwise without it.
///
/// Not thread-safe: one thread publishes.
final class RelayPublisher {
    private let store: ShareStore
    private let connection: JetStreamConnection
    private let codec: RelayCodec
    private let identity: RelayStreamIdentity
    private let statistics: RelayStatistics
    private let clock: any WallClock
    /// The log position read through: ahead of the committed cursor when
    /// the entries since were all foreign (nothing to publish, nothing to
    /// commit).
    private var readThrough: UInt64

    /// Entries of the log a pass reads at a time.
    static let batchEntries = 1000
    /// A cursor is committed without a publish once this many foreign
    /// entries were passed, so that a restart does not read them again.
    static let idleCommitDistance: UInt64 = 50_000

    init(
        store: ShareStore, connection: JetStreamConnection, codec: RelayCodec, identity: RelayStreamIdentity, statistics: RelayStatistics,
        clock: any WallClock
    ) throws(RelayFailure) {
        self.store = store
        self.connection = connection
        self.codec = codec
        self.identity = identity
        self.statistics = statistics
        self.clock = clock
        let cursor = try RelayFailure.fromStore(store.cursor(of: identity.published))
        readThrough = cursor?.epoch == identity.epoch ? cursor!.position : 0
    }

    /// Publishes everything logged since the last pass. Returns how many
    /// messages went out; 0 when there was nothing new.
    ///
    /// - Throws: `RelayFailure.stream` when the cluster did not acknowledge
    ///   a batch (nothing was committed for it; the next pass sends it
    ///   again); `.store` from the store; `.cardBeyondKeyWindow` from the codec.
    func publishPending() throws(RelayFailure) -> Int {
        var total = 0
        var committed = try RelayFailure.fromStore(store.cursor(of: identity.published))
            .flatMap { $0.epoch == identity.epoch ? $0.position : nil } ?? 0
        while true {
            let entries = try RelayFailure.fromStore(store.events(after: readThrough, limit: Self.batchEntries, maxBytes: 1 << 20))
            guard let last = entries.last else { break }
            let own = store.replicaID
            let now = clock.now()
            var messages: [OutgoingMessage] = []
            for entry in entries where entry.event.id.origin == own {
                messages.append(try codec.message(for: entry.event, cardIsLive: isLive(entry.event, at: now)))
            }
            if !messages.isEmpty {
                // What leaves the store is recorded first, so that a store
                // restored in place from an older copy renews its identity
                // rather than publish these ids again (docs/SYNC.md "Identity").
                try RelayFailure.fromStore(store.raiseHighWater(through: last.position))
                let duplicates = try RelayFailure.fromStream(connection.publish(messages, timeout: .seconds(10)))
                statistics.update {
                    $0.published += messages.count
                    $0.duplicatesPublished += duplicates
                }
                total += messages.count
            }
            readThrough = last.position
            if !messages.isEmpty || readThrough - committed >= Self.idleCommitDistance {
                let cursor = PeerCursor(peer: identity.published, epoch: identity.epoch, position: readThrough, lastSeen: now)
                _ = try RelayFailure.fromStore(store.apply([], advancing: cursor))
                committed = readThrough
            }
        }
        return total
    }

    /// Whether `event` is a creation whose share is live here now, so its
    /// card may leave this replica (docs/SYNC.md "What a peer reads").
    private func isLive(_ event: Event, at now: Timestamp) throws(RelayFailure) -> Bool {
        guard case .shareCreated(let created) = event.kind, created.vCard != nil else { return false }
        if case .live = try RelayFailure.fromStore(store.fetch(created.recordName, at: now)) { return true }
        return false
    }
}
