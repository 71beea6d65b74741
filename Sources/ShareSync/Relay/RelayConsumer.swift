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
/// **Gaps.** Only a consumer's first batch after `attach` may jump over
/// sequences: it starts at the cursor's next sequence, so what it skips
/// is gone from the stream (deleted by an operator, or aged out, which
/// `checkStillHeld` tells apart). A jump later means messages were
/// delivered and lost on the way (a pull in flight when a server failed
/// over, or a pass that failed after its fetch); with acknowledgements
/// that cover everything before them (`AckAll`), reading on would lose
/// them for good. So the relay applies what came before the jump, then
/// makes the consumer again at its cursor, as it does after any failed pass.
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
    /// Whether `consumer` was just made and has not delivered yet: its
    /// first delivery may skip only what the stream no longer holds.
    private var fresh = false
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
        fresh = true
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
    /// After a failure, the next pass reads again from the cursor.
    func pass(wait: Duration) throws -> Int {
        if consumer == nil { try attach() }
        guard let consumer else { return 0 }
        do {
            let messages = try consumer.fetch(count: 1000, maxBytes: 1 << 20, timeout: wait)
            guard !messages.isEmpty else { return 0 }
            if try apply(messages) {
                try consumer.acknowledgeFetched()
            } else {
                self.consumer = nil
            }
            return messages.count
        } catch {
            self.consumer = nil
            throw error
        }
    }

    /// Applies the run of `messages` that follows the cursor without a
    /// gap (see "Gaps"), with the cursor at its end. False when messages
    /// were lost on the way: the consumer must be made again.
    private func apply(_ messages: [IncomingMessage]) throws -> Bool {
        var events: [Event] = []
        var through = position
        var deleted = 0
        var intact = true
        for message in messages where message.streamSequence > through {
            if message.streamSequence != through + 1 {
                guard fresh else {
                    intact = false
                    break
                }
                try checkStillHeld(from: through + 1)
                deleted += Int(message.streamSequence - through - 1)
            }
            events.append(try codec.event(from: message))
            through = message.streamSequence
        }
        fresh = false
        // Only redeliveries of what the cursor covers: nothing to write.
        let applied = through > position ? try applyRenewingIdentity(events, through: through).applied : 0
        position = through
        statistics.update {
            $0.received += messages.count
            $0.applied += applied
            $0.streamPosition = through
            $0.streamPending = messages.last!.pending
            $0.deletedInStream += deleted
        }
        return intact
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
