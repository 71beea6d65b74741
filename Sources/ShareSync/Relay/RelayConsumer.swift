import ShareLog

/// Applies the stream's messages to the store through a durable pull
/// consumer, with the stream sequence committed in the same LMDB
/// transaction as the events, and acknowledged to JetStream only after
/// that commit.
///
/// The store's cursor (`RelayStreamIdentity.consumed`), not the consumer's
/// own state, says what was applied. The consumer lives on across passes
/// and restarts, since making one on a replicated stream takes a Raft round
/// of the cluster (0.4 to 0.6 s on three servers): `attach` binds to the
/// one JetStream holds when it fits (same filter, `AckAll`) and has
/// delivered nothing after the cursor. Otherwise it makes the consumer
/// afresh at the cursor's next sequence: when JetStream says it is gone
/// (an operator deleted it), or it is ahead of the store (the store was
/// restored from a backup, or a relay died holding deliveries it never
/// applied, which JetStream would redeliver only after its ack wait).
/// Messages delivered twice are skipped by sequence, then by event id.
///
/// **Gaps.** Only the first batch of a consumer made afresh may jump over
/// sequences: it starts at the cursor's next sequence, so what it skips
/// is gone from the stream (deleted by an operator, or aged out, which
/// `checkStillHeld` tells apart). Any other jump means messages were
/// delivered and lost on the way (a pull in flight when a server failed
/// over, or a pass that failed after its fetch); with acknowledgements
/// that cover everything before them (`AckAll`), reading on would lose
/// them for good. So the relay applies what came before the jump and
/// attaches again: the consumer, which delivered past the cursor, is made
/// afresh at it.
///
/// **Stalls.** A consumer can also stop delivering without failing. So a
/// fetch that waits for nothing asks the stream where it ends, and
/// `ConsumerStallWatch` decides when the consumer is made afresh at the
/// cursor's next sequence.
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
    /// Whether `consumer` was just made afresh at the cursor and has not
    /// delivered yet: its first delivery may skip only what the stream no
    /// longer holds. False for a consumer bound as it was.
    private var fresh = false
    /// Whether the consumer has stalled (see "Stalls").
    private var stallWatch = ConsumerStallWatch()
    /// The last stream sequence committed to the store.
    private(set) var position: UInt64
    /// Ends this consumer's fetches from another thread (the relay stopping).
    let interrupter = PullInterrupter()

    init(
        store: ShareStore, connection: JetStreamConnection, settings: StreamSettings, codec: RelayCodec,
        identity: RelayStreamIdentity, statistics: RelayStatistics, clock: any WallClock
    ) throws(RelayFailure) {
        self.store = store
        self.connection = connection
        self.settings = settings
        self.codec = codec
        self.identity = identity
        self.statistics = statistics
        self.clock = clock
        let cursor = try RelayFailure.fromStore(store.cursor(of: identity.consumed))
        position = cursor?.epoch == identity.epoch ? cursor!.position : 0
    }

    /// The consumer's durable name: one per replica, so the cluster's
    /// consumer list shows each replica's progress.
    var durableName: String { "sharelog-\(RelaySubjects.token(of: store.replicaID.uuid))" }

    /// Checks that the stream still holds everything after the cursor,
    /// then binds to the consumer, or makes it afresh (see the type's
    /// comment for when).
    ///
    /// - Throws: `RelayFailure.snapshotRequired` when messages after the
    ///   cursor are gone (a fresh store counts as a cursor at 0);
    ///   `.unsuitableStream` when the stream was made again; `.stream`
    ///   when JetStream did not answer (the caller retries).
    func attach() throws(RelayFailure) {
        consumer = nil
        let info = try streamInfo()
        if info.firstSequence > position + 1 {
            throw .snapshotRequired(appliedThrough: position, firstHeld: info.firstSequence)
        }
        if let existing = try RelayFailure.fromStream(connection.consumerInfo(stream: settings.name, durable: durableName)),
            existing.filterSubject == settings.allSubjects, existing.acknowledgesAll, existing.deliveredStreamSequence <= position
        {
            do {
                consumer = try connection.bindPullConsumer(
                    stream: settings.name, durable: durableName, filter: settings.allSubjects, interrupter: interrupter)
                fresh = false
                return
            } catch {
                // Deleted between the two requests: made afresh below.
                guard error.isConsumerNotFound else { throw .stream(error) }
            }
        }
        consumer = try RelayFailure.fromStream(
            connection.makePullConsumer(
                stream: settings.name, durable: durableName, filter: settings.allSubjects, startSequence: position + 1, interrupter: interrupter))
        fresh = true
        statistics.update { $0.consumersMade += 1 }
    }

    /// The stream's last sequence now: the end a catch-up reads to.
    func streamEnd() throws(RelayFailure) -> UInt64 {
        try streamInfo().lastSequence
    }

    /// The stream's info, checked to be the stream the relay started on.
    private func streamInfo() throws(RelayFailure) -> StreamInfo {
        guard let info = try RelayFailure.fromStream(connection.streamInfo(named: settings.name)) else {
            throw .stream(JetStreamError("find stream \(settings.name)", status: .init(rawValue: 0)))
        }
        guard RelayStreamIdentity(stream: info) == identity else {
            throw .unsuitableStream("stream \(settings.name) was deleted and created again while the relay ran; restart the relay")
        }
        return info
    }

    /// Moves the cursor this consumer reads from, after a snapshot set the
    /// store's; the next pass attaches again.
    func resume(at sequence: UInt64) {
        position = sequence
        consumer = nil
    }

    /// Fetches what the stream holds after the cursor (waiting up to
    /// `wait` for the first message), applies it with the cursor in one
    /// transaction, then acknowledges it. Returns the messages received.
    /// After a failure, or a batch that jumped (see "Gaps"), the next pass
    /// attaches again, so it reads on from the cursor.
    ///
    /// - Throws: `RelayFailure`; `.stream` when JetStream did not answer
    ///   (the caller retries).
    func pass(wait: Duration) throws(RelayFailure) -> Int {
        if consumer == nil { try attach() }
        guard let consumer else { return 0 }
        do {
            let messages = try RelayFailure.fromStream(consumer.fetch(count: 1000, maxBytes: 1 << 20, timeout: wait))
            guard !messages.isEmpty else {
                try remakeIfStalled()
                return 0
            }
            stallWatch.delivered()
            if try apply(messages) {
                try RelayFailure.fromStream(consumer.acknowledgeFetched())
            } else {
                self.consumer = nil
            }
            return messages.count
        } catch {
            self.consumer = nil
            throw error
        }
    }

    /// After a fetch that found nothing: makes the consumer afresh at the
    /// cursor's next sequence when `stallWatch` says it has stalled.
    private func remakeIfStalled() throws(RelayFailure) {
        let end = try streamInfo().lastSequence
        guard stallWatch.foundNothing(streamEnd: end, position: position, fresh: fresh) else { return }
        consumer = nil
        consumer = try RelayFailure.fromStream(
            connection.makePullConsumer(
                stream: settings.name, durable: durableName, filter: settings.allSubjects, startSequence: position + 1, interrupter: interrupter))
        fresh = true
        statistics.update { $0.consumersMade += 1 }
    }

    /// Applies the run of `messages` that follows the cursor without a
    /// gap (see "Gaps"), with the cursor at its end. False when messages
    /// were lost on the way: the consumer must be attached again.
    private func apply(_ messages: [IncomingMessage]) throws(RelayFailure) -> Bool {
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
        let applied = through > position ? try apply(events, through: through).applied : 0
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
    private func checkStillHeld(from sequence: UInt64) throws(RelayFailure) {
        guard let info = try RelayFailure.fromStream(connection.streamInfo(named: settings.name)) else { return }
        if info.firstSequence > sequence {
            consumer = nil
            throw .snapshotRequired(appliedThrough: position, firstHeld: info.firstSequence)
        }
    }

    /// Applies `events` with the stream cursor at `through`. An event of
    /// this replica's own id that it never made is refused
    /// (`RelayFailure.store(.ownOriginConflict)`), as a sync session refuses one,
    /// and the replica keeps its id (docs/SYNC.md "Identity").
    private func apply(_ events: [Event], through: UInt64) throws(RelayFailure) -> ApplyReport {
        let cursor = PeerCursor(peer: identity.consumed, epoch: identity.epoch, position: through, lastSeen: clock.now())
        return try RelayFailure.fromStore(store.apply(events, advancing: cursor))
    }
}
