import ShareLog

/// Applies the stream's messages to the store through a durable pull
/// consumer, with the stream sequence committed in the same LMDB
/// transaction as the events, and acknowledged to JetStream only after
/// that commit.
///
/// The store's cursor (`RelayStreamIdentity.consumed`), not the consumer's
/// own state, says what was applied: `attach` makes the consumer afresh at
/// the cursor's next sequence. A consumer can be ahead of the store (the
/// store was restored from a backup), or hold deliveries to a relay that
/// died, which JetStream would redeliver only after its ack wait; starting
/// from the cursor has neither problem, and messages delivered twice are
/// skipped by sequence, then by event id.
///
/// Not thread-safe: one thread consumes.
final class RelayConsumer {
    private let store: ShareStore
    private let connection: JetStreamConnection
    private let settings: StreamSettings
    private let codec: RelayCodec
    private let statistics: RelayStatistics
    private let clock: any WallClock
    private let identity: RelayStreamIdentity
    private var consumer: PullConsumer?
    /// The last stream sequence committed to the store.
    private(set) var position: UInt64

    init(
        store: ShareStore, connection: JetStreamConnection, settings: StreamSettings, codec: RelayCodec,
        identity: RelayStreamIdentity, statistics: RelayStatistics, clock: any WallClock
    ) throws {
        self.store = store
        self.connection = connection
        self.settings = settings
        self.codec = codec
        self.identity = identity
        self.statistics = statistics
        self.clock = clock
        let cursor = try store.cursor(of: identity.consumed)
        position = cursor?.epoch == identity.epoch ? cursor!.position : 0
    }

    /// The consumer's durable name: one per replica, so the cluster's
    /// consumer list shows each replica's progress.
    var durableName: String { "sharelog-\(RelaySubjects.token(of: store.replicaID.uuid))" }

    /// Checks that the stream still holds everything after the cursor,
    /// then makes the consumer.
    ///
    /// - Throws: `RelayFailure.snapshotRequired` when messages after the
    ///   cursor are gone (a fresh store counts as a cursor at 0).
    func attach() throws {
        consumer = nil
        guard let info = try connection.streamInfo(named: settings.name) else {
            throw JetStreamError("find stream \(settings.name)", status: .init(rawValue: 0))
        }
        guard RelayStreamIdentity(stream: info) == identity else {
            throw RelayFailure.unsuitableStream("stream \(settings.name) was deleted and created again while the relay ran; restart the relay")
        }
        if info.firstSequence > position + 1 {
            throw RelayFailure.snapshotRequired(appliedThrough: position, firstHeld: info.firstSequence)
        }
        consumer = try connection.pullConsumer(
            stream: settings.name, durable: durableName, filter: settings.allSubjects, startSequence: position + 1)
    }

    /// Moves the cursor this consumer reads from, after a snapshot set the
    /// store's; the consumer is made again at the next pass.
    func resume(at sequence: UInt64) {
        position = sequence
        consumer = nil
    }

    /// Fetches what the stream holds after the cursor (waiting up to
    /// `wait` for the first message), applies it with the cursor in one
    /// transaction, then acknowledges it. Returns the messages received.
    func pass(wait: Duration) throws -> Int {
        if consumer == nil { try attach() }
        guard let consumer else { return 0 }
        let messages = try consumer.fetch(count: 1000, maxBytes: 1 << 20, timeout: wait)
        guard let newest = messages.last else { return 0 }
        var events: [Event] = []
        var expected = position + 1
        var deleted = 0
        for message in messages where message.streamSequence > position {
            if message.streamSequence != expected {
                try checkStillHeld(from: expected)
                deleted += Int(message.streamSequence - expected)
            }
            events.append(try codec.event(from: message))
            expected = message.streamSequence + 1
        }
        let through = max(position, newest.streamSequence)
        let report = try applyRenewingIdentity(events, through: through)
        position = through
        try consumer.acknowledgeFetched()
        statistics.update {
            $0.received += messages.count
            $0.applied += report.applied
            $0.streamPosition = through
            $0.streamPending = newest.pending
            $0.deletedInStream += deleted
        }
        return messages.count
    }

    /// A jump in the sequences delivered: messages the consumer skipped
    /// were deleted. From the middle of the stream (an operator removed
    /// them) that is no gap in what replicas made; from its front (they
    /// aged out before this replica read them) it is.
    private func checkStillHeld(from sequence: UInt64) throws {
        guard let info = try connection.streamInfo(named: settings.name) else { return }
        if info.firstSequence > sequence {
            consumer = nil
            throw RelayFailure.snapshotRequired(appliedThrough: position, firstHeld: info.firstSequence)
        }
    }

    /// Applies `events` with the stream cursor at `through`. The stream
    /// holding an event of this replica's id that it never made means the
    /// store was restored from an older copy: it takes a new identity, as a
    /// sync session would (docs/SYNC.md "Identity"), and applies again.
    private func applyRenewingIdentity(_ events: [Event], through: UInt64) throws -> ApplyReport {
        let cursor = PeerCursor(peer: identity.consumed, epoch: identity.epoch, position: through, lastSeen: clock.now())
        do {
            return try store.apply(events, advancing: cursor)
        } catch ShareLogError.ownOriginConflict(let id, let made) {
            try store.renewIdentity(reason: .peerHoldsNewerEvents(peerHolds: id.counter, madeHere: made))
            return try store.apply(events, advancing: cursor)
        }
    }
}
