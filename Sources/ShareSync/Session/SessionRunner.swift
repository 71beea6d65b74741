import ShareLog

/// One established session's loop on the calling thread: reads the peer's
/// messages, runs the direction state machines, and carries out their
/// actions against the store (docs/SYNC.md "Sessions").
///
/// Each batch is applied, and its cursor advanced, in one write
/// transaction before it is acknowledged; a stop or a failure between two
/// actions leaves nothing half-applied. Heartbeats go out when this side
/// has been quiet for `heartbeatInterval`, and a peer quiet for
/// `peerTimeout` ends the session.
final class SessionRunner {
    let store: ShareStore
    let messages: MessageChannel
    let peer: EstablishedPeer
    let isClient: Bool
    let options: SessionOptions
    let wake: WakeSignal
    let context: SessionContext
    private var receiver: EventReceiver?
    private var sender: EventSender?
    private var fetcher: ClipFetcher?
    private var clipServer: ClipServer?
    private(set) var summary = SyncSummary()
    private var lastSent = ContinuousClock.now
    /// When the peer last sent a byte, and how many bytes it had sent then.
    private var lastReceived = ContinuousClock.now
    private var bytesSeen = 0
    private var awaitingCommitAfter: UInt64?
    private var peerSaidBye = false
    /// The server's pull, held by a client that also pulls until its own
    /// pull has caught up (see `handle`).
    private var heldPull: Message?

    init(
        store: ShareStore, messages: MessageChannel, peer: EstablishedPeer, isClient: Bool, options: SessionOptions,
        wake: WakeSignal, context: SessionContext, fetch names: [RecordName] = []
    ) throws(SyncFailure) {
        self.store = store
        self.messages = messages
        self.peer = peer
        self.isClient = isClient
        self.options = options
        self.wake = wake
        self.context = context
        summary.peer = peer.replica
        summary.role = peer.role
        summary.directions = peer.directions
        let receives = isClient ? peer.directions.contains(.pull) : peer.directions.contains(.push)
        let sends = isClient ? peer.directions.contains(.push) : peer.directions.contains(.pull)
        if peer.role == .main, receives {
            let cursor: PeerCursor?
            let held: UInt64
            do {
                cursor = try store.cursor(of: peer.replica)
                held = try store.highestCounter(of: peer.replica)
            } catch let error as ShareLogError { throw .store(error) } catch { throw .store(.corruptMeta("cursors")) }
            receiver = EventReceiver(
                peer: peer.replica, peerEpoch: peer.epoch, cursor: cursor, follow: peer.directions.contains(.follow),
                maxBatchBytes: UInt32(clamping: options.maxBatchBytes), heldOfPeer: held)
        }
        if peer.role == .main, sends { sender = EventSender(peer: peer.replica, maxBatchBytes: options.maxBatchBytes) }
        if peer.role == .clip { if isClient { fetcher = ClipFetcher(names: names) } else { clipServer = ClipServer(options: options) } }
    }

    /// Runs the session to its end: both directions complete (client), the
    /// peer's `bye` (server), or `context.stopping`. A failure is told to
    /// the peer with an `error` message, when the stream still carries one,
    /// before it is thrown.
    func run(progress: ((SyncSummary) -> Void)? = nil) throws(SyncFailure) -> SyncSummary {
        do {
            return try loop(progress: progress)
        } catch {
            if let message = error.errorMessage { try? messages.send(message, deadline: .now + .seconds(1)) }
            throw error
        }
    }

    private func loop(progress: ((SyncSummary) -> Void)?) throws(SyncFailure) -> SyncSummary {
        var actions = receiver?.start() ?? []
        if var machine = fetcher {
            actions += machine.start()
            fetcher = machine
        }
        try perform(actions)
        while !isComplete {
            if context.isStopping {
                try? messages.send(.error(code: .shuttingDown, message: "the \(isClient ? "client" : "server") is stopping"), deadline: writeDeadline)
                return finish()
            }
            let deadline = min(lastSent + options.heartbeatInterval, lastReceived + options.peerTimeout)
            let incoming = try messages.receive(orWake: wake.descriptor, deadline: deadline)
            // Any byte counts as a sign of life: on a slow link one batch
            // can take longer than the peer timeout to arrive whole.
            if messages.bytesIn != bytesSeen {
                bytesSeen = messages.bytesIn
                lastReceived = .now
            }
            switch incoming {
            case .message(let message):
                try handle(message)
                progress?(summaryNow())
            case .woken:
                wake.drain()
                try followCommits()
            case .timedOut:
                let now = ContinuousClock.now
                if now >= lastReceived + options.peerTimeout { throw .peerSilent(options.peerTimeout) }
                if now >= lastSent + options.heartbeatInterval { try send(.heartbeat) }
                // Commits by other processes are not announced: look on each tick.
                try followCommits()
            case .closed:
                guard peerSaidBye else { throw .peerClosed }
                return finish()
            }
        }
        if isClient { try send(.bye) }
        return finish()
    }

    private var isComplete: Bool {
        if peerSaidBye { return true }
        guard isClient else { return false }
        let received = receiver.map { $0.phase == .done } ?? true
        let sent = sender.map { $0.phase == .done && $0.ackedThrough == $0.sentThrough } ?? true
        let fetched = fetcher?.isDone ?? true
        return received && sent && fetched
    }

    private func handle(_ message: Message) throws(SyncFailure) {
        do {
            switch message {
            case .heartbeat: return
            // Only a client says `bye`, once its directions are done: from a
            // server, before then, it would end a clip's fetch "well" with no
            // answer (the session fuzz target found it).
            case .bye where isClient: throw SessionError.unexpected(.bye, while: "the client's directions were not done (only a client ends a session)")
            case .bye: peerSaidBye = true
            // A client stopping ends the server's side in good order; a
            // server stopping before the client is done is a failure.
            case .error(.shuttingDown, _) where !isClient: peerSaidBye = true
            case .error(let code, let text): throw SessionError.peerError(code, text)
            case _ where EventReceiver.handles(message.type):
                guard var machine = receiver else { throw SessionError.unexpected(message.type, while: "not receiving in this session") }
                let actions = try machine.receive(message)
                receiver = machine
                try perform(actions)
                if let pull = heldPull, [.following, .done].contains(machine.phase) {
                    heldPull = nil
                    try handle(pull)
                }
            case .pull where sender == nil:
                // Before the restore check below: a peer that may not pull
                // must not make this replica renew its identity either.
                throw SessionError.unexpected(.pull, while: "not sending in this session")
            case .pull(let pull) where try restored(peerHolds: pull.heldOfYou):
                // This store was restored from an older copy: it has a new
                // id now, and the peer must see it before anything is sent.
                if isClient { try send(.bye) } else { try send(.error(code: .identityChanged, message: "this replica was restored from an older copy and took a new replica id; connect again")) }
                peerSaidBye = true
            case .pull where isClient && receiver.map({ ![.following, .done].contains($0.phase) }) == true:
                // Both ways at once, each side could be writing a batch
                // while the other is too, neither reading: a deadlock once
                // the socket buffers fill (a send blocks until the peer
                // reads). So a client that pulls and pushes answers the
                // server's pull once its own has caught up; in between it
                // only writes acks, which the server reads.
                heldPull = message
            case _ where EventSender.handles(message.type):
                guard var machine = sender else { throw SessionError.unexpected(message.type, while: "not sending in this session") }
                let actions = try machine.receive(message)
                sender = machine
                try perform(actions)
            case .fetch(let names):
                guard var server = clipServer else { throw SessionError.unexpected(.fetch, while: "in a main session") }
                let answer = try server.answer(names, from: store)
                clipServer = server
                if let delay = answer.delay { pause(delay) }
                try send(.records(answer.records))
            case .records(let records):
                guard var machine = fetcher else { throw SessionError.unexpected(.records, while: "not fetching") }
                let actions = try machine.receive(records)
                fetcher = machine
                summary.found = machine.found
                summary.unknown = machine.unknown
                try perform(actions)
            default:
                throw SessionError.unexpected(message.type, while: "established")
            }
        } catch let error as SessionError {
            throw .session(error)
        } catch let error as ShareLogError {
            throw .store(error)
        } catch let error as SyncFailure {
            throw error
        } catch {
            throw .session(.unexpected(message.type, while: "established: \(error)"))
        }
    }

    /// Carries out `actions` in order. A read's result brings more actions,
    /// which go first: a loop over a queue, not recursion, so a snapshot of
    /// any length runs in constant stack.
    /// Renews this store's identity when the peer holds more of its own
    /// events than it made (it was restored from an older copy); says so.
    private func restored(peerHolds held: UInt64) throws -> Bool {
        guard held > 0 else { return false }
        let made = try store.originCounter()
        guard held > made else { return false }
        summary.identityRenewal = try store.renewIdentity(reason: .peerHoldsNewerEvents(peerHolds: held, madeHere: made))
        return true
    }

    private func perform(_ actions: [SessionAction]) throws(SyncFailure) {
        var queue = actions[...]
        while let action = queue.popFirst() {
            switch action {
            case .send(let message):
                try send(message)
            case .apply(let events, let mark, let then):
                try apply(events, mark: mark)
                if let then { try send(then) }
            case .readLog(let after, let epoch, let maxBytes):
                let read: LogRead
                do {
                    read = .batch(try store.replicationBatch(after: after, inEpoch: epoch, maxBytes: maxBytes, excludingOrigin: peer.replica))
                } catch ShareLogError.snapshotRequired(let reason) {
                    read = .snapshotRequired(reason, current: store.epoch)
                } catch let error as ShareLogError { throw .store(error) } catch { throw .store(.corruptMeta("log")) }
                queue = mutateSender { $0.read(read) } + queue
            case .readSnapshot(let after, let maxBytes):
                let batch: ReplicationBatch
                do {
                    batch = try store.snapshotBatch(after: after, maxBytes: maxBytes, excludingOrigin: peer.replica)
                } catch let error as ShareLogError { throw .store(error) } catch { throw .store(.corruptMeta("log")) }
                queue = mutateSender { $0.readSnapshot(batch, epoch: batch.epoch) } + queue
            case .awaitCommit(let after):
                awaitingCommitAfter = after
                queue = try committedActions() + queue
            case .directionDone:
                continue
            }
        }
    }

    /// In follow mode, hands the sender the log's end once it has moved.
    private func followCommits() throws(SyncFailure) {
        try perform(committedActions())
    }

    /// What the sender does now that the log has moved past where it
    /// waits; nothing when it has not, or when it does not wait.
    private func committedActions() throws(SyncFailure) -> [SessionAction] {
        guard let after = awaitingCommitAfter else { return [] }
        let last: UInt64
        do { last = try store.lastPosition() } catch let error as ShareLogError { throw .store(error) } catch { throw .store(.corruptMeta("log")) }
        guard last > after else { return [] }
        awaitingCommitAfter = nil
        return mutateSender { $0.committed(last) }
    }

    private func apply(_ events: EncodedEvents, mark: CursorMark?) throws(SyncFailure) {
        let decoded: [Event]
        do { decoded = try events.decoded() } catch { throw .message(error) }
        do {
            let report: ApplyReport
            if let mark {
                let cursor = PeerCursor(peer: peer.replica, epoch: mark.epoch, position: mark.position, lastSeen: store.options.clock.now())
                report = try mark.resets ? store.apply(decoded, resetting: cursor) : store.apply(decoded, advancing: cursor)
            } else {
                report = try store.apply(decoded)
            }
            summary.eventsReceived += decoded.count
            summary.eventsApplied += report.applied
        } catch let error as ShareLogError { throw .store(error) } catch { throw .store(.corruptMeta("log")) }
    }

    private func mutateSender(_ body: (inout EventSender) -> [SessionAction]) -> [SessionAction] {
        guard var machine = sender else { return [] }
        let actions = body(&machine)
        sender = machine
        return actions
    }

    private var writeDeadline: ContinuousClock.Instant { .now + options.writeTimeout }

    private func send(_ message: Message) throws(SyncFailure) {
        do { try messages.send(message, stallTimeout: options.writeTimeout) } catch { throw .transport(error) }
        lastSent = .now
    }

    /// Waits `delay` before answering, waking early only to stop.
    private func pause(_ delay: Duration) {
        let until = ContinuousClock.now + delay
        while ContinuousClock.now < until, !context.isStopping {
            if wake.wait(until: until) { wake.drain() }
        }
    }

    private func summaryNow() -> SyncSummary {
        var now = summary
        now.eventsSent = sender?.eventsSent ?? 0
        now.bytesIn = messages.bytesIn
        now.bytesOut = messages.bytesOut
        now.snapshots = receiver?.snapshotsTaken ?? 0
        return now
    }

    private func finish() -> SyncSummary {
        summary = summaryNow()
        return summary
    }
}
