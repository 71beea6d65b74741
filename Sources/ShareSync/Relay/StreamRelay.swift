import Foundation
import ShareLog
import SharePrimitives

/// Connects one ShareLog replica to a JetStream stream in both directions
/// (docs/SCALING.md): it publishes the replica's own events and applies
/// every other replica's, until its context stops.
///
/// On start it makes sure the stream exists and fits, then catches up from
/// the stream before it publishes anything: a store restored from an older
/// copy that its own signs missed meets its own newer events there first,
/// and stops with `RelayFailure.store(.ownOriginConflict)` instead of
/// publishing events under ids the stream already holds.
/// After that a publishing thread and the calling thread run side by side;
/// connection and cluster errors (`RelayFailure.stream`) are waited out
/// with backoff, and any other `RelayFailure` stops both and is thrown.
///
/// The publishing thread does not poll: it publishes what is pending, then
/// sleeps until the store announces a commit (`ShareStore.commits()`,
/// relayed to the context's wake signals by `withCommitWatch`) or the
/// heartbeat passes. Its wake signal is registered before its first look
/// at the log, so a commit after a look always wakes the wait that follows
/// it; a commit the store does not announce waits at most one heartbeat,
/// and is never lost.
public final class StreamRelay: Sendable {
    public struct Options: Sendable {
        public var stream = StreamSettings()
        /// The clock a creation's liveness and the key's hour are read from.
        public var clock: any WallClock = SystemClock()
        /// How often the publisher looks at the log with no commit
        /// announced, on a fixed beat that announcements do not push back:
        /// a commit the store did not announce goes out within one. It
        /// advances the stream key to the current hour at each look.
        public var heartbeat = Duration.seconds(5)
        /// A peer to take the sync protocol's pull (a snapshot when its log
        /// was trimmed) from when the stream lost messages this replica
        /// has not applied; nil to stop with `RelayFailure.snapshotRequired`.
        public var snapshotFrom: SyncRequest?

        public init() {}
    }

    /// How long the consumer's fetch waits for a first message before it
    /// asks again: the longest a pull lost with a failed server holds up
    /// deliveries. A stop interrupts the wait.
    static let fetchWait = Duration.seconds(5)

    public let statistics = RelayStatistics()
    private let store: ShareStore
    private let connection: JetStreamConnection
    private let keyring: StreamKeyring
    private let options: Options
    /// The sync key of the pull from `options.snapshotFrom`: its own key
    /// at first, then the last `replaceSnapshotKey(with:)`.
    private let snapshotKey: Locked<SyncKey?>

    public init(store: ShareStore, connection: JetStreamConnection, keyring: StreamKeyring, options: Options = Options()) {
        self.store = store
        self.connection = connection
        self.keyring = keyring
        self.options = options
        snapshotKey = Locked(options.snapshotFrom?.key)
    }

    /// Makes `key` the sync key of every pull from `options.snapshotFrom`
    /// that starts from now on (a pull under way keeps its own): for a
    /// peer whose key was replaced (`SyncServer.replaceKey(with:)`). Safe
    /// from any thread, while `run` runs.
    public func replaceSnapshotKey(with key: SyncKey) {
        snapshotKey.withLock { $0 = key }
    }

    /// Relays until `context` stops. `log` gets one line per notable
    /// moment (caught up, a retry, a snapshot); `ready` is called once,
    /// when the relay has caught up with the stream and starts publishing.
    ///
    /// - Throws: `RelayFailure`, the only error: `.stream` while setting up
    ///   the stream (a JetStream that does not answer in time is waited out
    ///   for `setupPatience` first; errors after the setup are retried,
    ///   never thrown),
    ///   `.store` from the store, `.sync` from a snapshot pull or when the
    ///   store's commits cannot be watched, `.key` when the stream key file
    ///   cannot be advanced, and the relay's own refusals.
    public func run(context: SessionContext, log: @escaping @Sendable (LogRecord) -> Void = { _ in }, ready: () -> Void = {}) throws(RelayFailure) {
        let info = try ensureStreamPatiently(context: context, log: log)
        let identity = RelayStreamIdentity(stream: info)
        let codec = RelayCodec(prefix: options.stream.subjectPrefix, keyring: keyring)
        let consumer = try RelayConsumer(
            store: store, connection: connection, settings: options.stream, codec: codec, identity: identity,
            statistics: statistics, clock: options.clock)
        try catchUp(consumer, identity: identity, context: context, log: log)
        log(LogRecord(
            .info, "relay.caughtUp", "caught up with stream \(options.stream.name) at sequence \(consumer.position); publishing",
            [("stream", LogValue(options.stream.name)), ("sequence", LogValue(consumer.position))]))
        ready()
        // The watch's own failure and the relay's are told apart: the
        // relay's rides out of the watch as a value.
        let outcome: Result<Void, RelayFailure>
        do {
            outcome = try withCommitWatch(store: store, context: context, when: true) { () throws(SyncFailure) -> Result<Void, RelayFailure> in
                Result { () throws(RelayFailure) in try relay(consumer, codec: codec, identity: identity, context: context, log: log) }
            }
        } catch {
            throw .sync(error)
        }
        try outcome.get()
    }

    /// Publishes on a thread of its own and consumes on the calling one
    /// until `context` stops, or either fails; then stops both.
    private func relay(
        _ consumer: RelayConsumer, codec: RelayCodec, identity: RelayStreamIdentity, context: SessionContext,
        log: @escaping @Sendable (LogRecord) -> Void
    ) throws(RelayFailure) {
        let interrupter = consumer.interrupter
        let publishing = RelayThread(name: "sharelog-relay-publish") { [self] () throws(RelayFailure) in
            // The publisher ends only when the relay stops, or fails, which
            // stops it: either way the consumer's fetch need not wait on.
            defer { interrupter.interrupt() }
            do throws(RelayFailure) {
                try publish(codec: codec, identity: identity, context: context, log: log)
            } catch {
                context.stop()
                throw error
            }
        }
        defer { _ = publishing.join() }
        do {
            try loop(context: context, log: log) { () throws(RelayFailure) in
                do throws(RelayFailure) {
                    _ = try consumer.pass(wait: Self.fetchWait)
                } catch {
                    guard case .snapshotRequired(let applied, let first) = error, options.snapshotFrom != nil else { throw error }
                    try takeSnapshot(consumer, identity: identity, firstHeld: first, appliedThrough: applied, context: context, log: log)
                }
            }
        } catch {
            context.stop()
            throw error
        }
        context.stop()
        if let failure = publishing.join() { throw failure }
    }

    /// The publishing thread's body: publishes what is pending, and when
    /// there was nothing, waits for a commit, a stop or the heartbeat.
    private func publish(
        codec: RelayCodec, identity: RelayStreamIdentity, context: SessionContext, log: @escaping @Sendable (LogRecord) -> Void
    ) throws(RelayFailure) {
        // Made here: a publisher belongs to the one thread that uses it.
        let publisher = try RelayPublisher(
            store: store, connection: connection, codec: codec, identity: identity, statistics: statistics, clock: options.clock)
        // Registered before the first look at the log: a commit after any
        // look signals it, so the wait after that look returns at once.
        let wake: WakeSignal
        do { wake = try context.registeredSignal() } catch { throw .sync(error) }
        defer { context.release(wake) }
        // Kept when a commit wakes the wait: the log is looked at once a
        // heartbeat at least, however often commits come.
        var heartbeat = ContinuousClock.now + options.heartbeat
        try loop(context: context, log: log) { () throws(RelayFailure) in
            do throws(StreamKeyringError) { try keyring.advance(to: options.clock.now()) } catch { throw .key(error) }
            guard try publisher.publishPending() == 0, !context.isStopping else { return }
            if !wake.wait(until: heartbeat) { heartbeat = .now + options.heartbeat }
            // Drained after the wait, before the next look: a commit
            // announced after the drain is seen by that look or wakes the
            // next wait.
            wake.drain()
        }
    }

    /// How long the setup waits out a JetStream that does not answer in
    /// time: a cluster still electing its leader after a restart, or one
    /// too loaded to answer within the request timeout.
    static let setupPatience = Duration.seconds(30)

    /// `ensureStream`, tried again a second apart while JetStream does not
    /// answer in time, until `setupPatience` has passed; any other refusal
    /// is thrown at once.
    private func ensureStreamPatiently(context: SessionContext, log: @escaping @Sendable (LogRecord) -> Void) throws(RelayFailure) -> StreamInfo {
        let giveUp = ContinuousClock.now + Self.setupPatience
        while true {
            do {
                return try ensureStream()
            } catch {
                guard case .stream(let cause) = error, cause.timedOut, ContinuousClock.now < giveUp, !context.isStopping else { throw error }
                log(LogRecord(
                    .warning, "relay.setup.retry",
                    "JetStream did not answer in time while the relay set up stream \(options.stream.name) (\(cause)); trying again",
                    [("stream", LogValue(options.stream.name)), ("reason", LogValue("\(cause)"))]))
                context.sleep(for: .seconds(1))
            }
        }
    }

    /// Finds the stream, or creates it; checks that an existing one fits.
    ///
    /// - Throws: `RelayFailure.stream` when JetStream refused or did not
    ///   answer (not retried); `.unsuitableStream`.
    private func ensureStream() throws(RelayFailure) -> StreamInfo {
        let settings = options.stream
        guard let info = try RelayFailure.fromStream(connection.streamInfo(named: settings.name)) else {
            return try RelayFailure.fromStream(connection.createStream(settings))
        }
        guard info.subjects.contains(settings.allSubjects) || info.subjects.contains(">") else {
            throw .unsuitableStream(
                "stream \(settings.name) holds subjects \(info.subjects), not \(settings.allSubjects); give another --stream or --subject-prefix")
        }
        let minimum = StreamSettings.minimumMaxAge.wholeNanoseconds
        guard info.maxAgeNanoseconds == 0 || info.maxAgeNanoseconds >= minimum else {
            throw .unsuitableStream(
                "stream \(settings.name) keeps messages for \(info.maxAgeNanoseconds / 3_600_000_000_000) hours, less than the longest TTL "
                    + "plus the tombstone horizon (\(minimum / 3_600_000_000_000) hours): a replica away for a while would miss events. "
                    + "Raise its max age (`nats stream edit`)")
        }
        return info
    }

    /// Applies the stream up to its end before anything is published: up
    /// to the stream's last sequence when the catch-up began, or until a
    /// pass waits a second for nothing (what is left below that end is not
    /// for this consumer: other subjects, or messages deleted). A replica
    /// already at the end reads nothing.
    /// JetStream's errors (`RelayFailure.stream`) are waited out, a second
    /// apart.
    private func catchUp(
        _ consumer: RelayConsumer, identity: RelayStreamIdentity, context: SessionContext, log: @escaping @Sendable (LogRecord) -> Void
    ) throws(RelayFailure) {
        var end: UInt64?
        while !context.isStopping {
            do {
                let target: UInt64
                if let end { target = end } else { target = try consumer.streamEnd() }
                end = target
                if consumer.position >= target { return }
                statistics.update { $0.catchUpFetches += 1 }
                if try consumer.pass(wait: .seconds(1)) == 0 { return }
            } catch {
                switch error {
                case .snapshotRequired(let applied, let first) where options.snapshotFrom != nil:
                    try takeSnapshot(consumer, identity: identity, firstHeld: first, appliedThrough: applied, context: context, log: log)
                case .stream(let cause):
                    statistics.update { $0.retries += 1 }
                    log(LogRecord(.warning, "relay.waiting", "waiting for the cluster: \(cause)", [("reason", LogValue("\(cause)"))]))
                    context.sleep(for: .seconds(1))
                case .snapshotRequired, .unsuitableStream, .invalidMessage, .cardBeyondKeyWindow, .store, .sync, .key:
                    throw error
                }
            }
        }
    }

    /// Pulls from the peer `options.snapshotFrom` names (the sync protocol
    /// takes its snapshot path when the peer's log was trimmed), then moves
    /// the stream cursor to just before the stream's oldest message.
    ///
    /// What the stream lost was applied by the peer, whose relay consumed
    /// those messages before they aged out, so the pull brings it; the
    /// stream, read from its oldest message on, brings the rest.
    private func takeSnapshot(
        _ consumer: RelayConsumer, identity: RelayStreamIdentity, firstHeld: UInt64, appliedThrough: UInt64,
        context: SessionContext, log: @escaping @Sendable (LogRecord) -> Void
    ) throws(RelayFailure) {
        guard var request = options.snapshotFrom else { return }
        request.key = snapshotKey.withLock { $0 }
        log(LogRecord(
            .warning, "relay.snapshot.started",
            "the stream lost messages \(appliedThrough + 1)…\(firstHeld - 1) this replica never applied; pulling from \(request.endpoint)",
            [("firstLost", LogValue(appliedThrough + 1)), ("lastLost", LogValue(firstHeld - 1)), ("peer", LogValue("\(request.endpoint)"))]))
        let summary: SyncSummary
        do { summary = try SyncClient.run(request, store: store, context: context) } catch { throw .sync(error) }
        let cursor = PeerCursor(peer: identity.consumed, epoch: identity.epoch, position: firstHeld - 1, lastSeen: options.clock.now())
        _ = try RelayFailure.fromStore(store.apply([], advancing: cursor))
        consumer.resume(at: firstHeld - 1)
        statistics.update { $0.snapshots += 1 }
        log(LogRecord(
            .info, "relay.snapshot.ended",
            "pulled \(summary.eventsReceived) events (\(summary.eventsApplied) new) from the peer; reading the stream from sequence \(firstHeld)",
            [("eventsReceived", LogValue(summary.eventsReceived)), ("eventsApplied", LogValue(summary.eventsApplied)), ("sequence", LogValue(firstHeld))]))
    }

    /// Runs `step` until `context` stops, waiting out connection and
    /// cluster errors (`RelayFailure.stream`) with backoff (250 ms doubling
    /// to 5 s). Such an error once the context stops (a fetch the stop
    /// interrupted) ends it quietly; any other is thrown.
    private func loop(
        context: SessionContext, log: @escaping @Sendable (LogRecord) -> Void, _ step: () throws(RelayFailure) -> Void
    ) throws(RelayFailure) {
        var backoff = Duration.milliseconds(250)
        while !context.isStopping {
            do {
                try step()
                backoff = .milliseconds(250)
            } catch {
                guard case .stream(let cause) = error else { throw error }
                guard !context.isStopping else { return }
                statistics.update { $0.retries += 1 }
                log(LogRecord(
                    .warning, "relay.retry", "retrying in \(backoff): \(cause)",
                    [("milliseconds", LogValue(backoff.wholeMilliseconds)), ("reason", LogValue("\(cause)"))]))
                context.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(5))
            }
        }
    }
}
