import Foundation
import ShareLog

/// Connects one ShareLog replica to a JetStream stream in both directions
/// (docs/SCALING.md): it publishes the replica's own events and applies
/// every other replica's, until its context stops.
///
/// On start it makes sure the stream exists and fits, then catches up from
/// the stream before it publishes anything: a store restored from an older
/// copy meets its own newer events there first, and takes a new identity
/// instead of publishing events under ids the stream already holds.
/// After that a publishing thread and the calling thread run side by side;
/// connection and cluster errors are waited out with backoff, and anything
/// else stops both and is thrown.
public final class StreamRelay: Sendable {
    public struct Options: Sendable {
        public var stream = StreamSettings()
        /// The clock a creation's liveness and the key's hour are read from.
        public var clock: any WallClock = SystemClock()
        /// How often the publisher looks for commits made by other processes.
        public var pollInterval = Duration.milliseconds(5)
        /// A peer to take the sync protocol's pull (a snapshot when its log
        /// was trimmed) from when the stream lost messages this replica
        /// has not applied; nil to stop with `RelayFailure.snapshotRequired`.
        public var snapshotFrom: SyncRequest?

        public init() {}
    }

    public let statistics = RelayStatistics()
    private let store: ShareStore
    private let connection: JetStreamConnection
    private let keyring: StreamKeyring
    private let options: Options

    public init(store: ShareStore, connection: JetStreamConnection, keyring: StreamKeyring, options: Options = Options()) {
        self.store = store
        self.connection = connection
        self.keyring = keyring
        self.options = options
    }

    /// Relays until `context` stops. `log` gets one line per notable
    /// moment (caught up, a retry, a snapshot).
    ///
    /// - Throws: `RelayFailure`, `JetStreamError` while setting up the
    ///   stream, `ShareLogError` from the store, `SyncFailure` from a snapshot.
    public func run(context: SessionContext, log: @escaping @Sendable (String) -> Void = { _ in }) throws {
        let info = try ensureStream()
        let identity = RelayStreamIdentity(stream: info)
        let codec = RelayCodec(prefix: options.stream.subjectPrefix, keyring: keyring)
        let consumer = try RelayConsumer(
            store: store, connection: connection, settings: options.stream, codec: codec, identity: identity,
            statistics: statistics, clock: options.clock)
        try catchUp(consumer, identity: identity, context: context, log: log)
        log("caught up with stream \(options.stream.name) at sequence \(consumer.position); publishing")
        let publishing = RelayThread(name: "sharelog-relay-publish") { [self] in
            do {
                // Made here: a publisher belongs to the one thread that uses it.
                let publisher = try RelayPublisher(
                    store: store, connection: connection, codec: codec, identity: identity, statistics: statistics, clock: options.clock)
                try loop(context: context, log: log) {
                    try keyring.advance(to: options.clock.now())
                    if try publisher.publishPending() == 0 { context.sleep(for: options.pollInterval) }
                }
            } catch {
                context.stop()
                throw error
            }
        }
        defer { _ = publishing.join() }
        do {
            try loop(context: context, log: log) {
                do {
                    _ = try consumer.pass(wait: .seconds(1))
                } catch RelayFailure.snapshotRequired(let applied, let first) where options.snapshotFrom != nil {
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

    /// Finds the stream, or creates it; checks that an existing one fits.
    private func ensureStream() throws -> StreamInfo {
        let settings = options.stream
        guard let info = try connection.streamInfo(named: settings.name) else {
            return try connection.createStream(settings)
        }
        guard info.subjects.contains(settings.allSubjects) || info.subjects.contains(">") else {
            throw RelayFailure.unsuitableStream(
                "stream \(settings.name) holds subjects \(info.subjects), not \(settings.allSubjects); give another --stream or --subject-prefix")
        }
        let minimum = nanoseconds(StreamSettings.minimumMaxAge)
        guard info.maxAgeNanoseconds == 0 || info.maxAgeNanoseconds >= minimum else {
            throw RelayFailure.unsuitableStream(
                "stream \(settings.name) keeps messages for \(info.maxAgeNanoseconds / 3_600_000_000_000) hours, less than the longest TTL "
                    + "plus the tombstone horizon (\(minimum / 3_600_000_000_000) hours): a replica away for a while would miss events. "
                    + "Raise its max age (`nats stream edit`)")
        }
        return info
    }

    /// Applies the stream up to its end before anything is published.
    private func catchUp(_ consumer: RelayConsumer, identity: RelayStreamIdentity, context: SessionContext, log: @escaping @Sendable (String) -> Void) throws {
        while !context.isStopping {
            do {
                if try consumer.pass(wait: .milliseconds(500)) == 0 { return }
            } catch RelayFailure.snapshotRequired(let applied, let first) where options.snapshotFrom != nil {
                try takeSnapshot(consumer, identity: identity, firstHeld: first, appliedThrough: applied, context: context, log: log)
            } catch let error as JetStreamError {
                statistics.update { $0.retries += 1 }
                log("waiting for the cluster: \(error)")
                context.sleep(for: .seconds(1))
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
        context: SessionContext, log: @escaping @Sendable (String) -> Void
    ) throws {
        guard let request = options.snapshotFrom else { return }
        log("the stream lost messages \(appliedThrough + 1)…\(firstHeld - 1) this replica never applied; pulling from \(request.endpoint)")
        let summary = try SyncClient.run(request, store: store, context: context)
        try store.apply([], advancing: PeerCursor(peer: identity.consumed, epoch: identity.epoch, position: firstHeld - 1, lastSeen: options.clock.now()))
        consumer.resume(at: firstHeld - 1)
        statistics.update { $0.snapshots += 1 }
        log("pulled \(summary.eventsReceived) events (\(summary.eventsApplied) new) from the peer; reading the stream from sequence \(firstHeld)")
    }

    /// Runs `step` until `context` stops, waiting out connection errors with
    /// backoff (250 ms doubling to 5 s).
    private func loop(context: SessionContext, log: @escaping @Sendable (String) -> Void, _ step: () throws -> Void) throws {
        var backoff = Duration.milliseconds(250)
        while !context.isStopping {
            do {
                try step()
                backoff = .milliseconds(250)
            } catch let error as JetStreamError {
                statistics.update { $0.retries += 1 }
                log("retrying in \(backoff): \(error)")
                context.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(5))
            }
        }
    }
}
