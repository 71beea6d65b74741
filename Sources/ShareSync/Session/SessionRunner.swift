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
    private var lastReceived = ContinuousClock.now
    private var snapshotEpoch: Epoch?
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
            do { cursor = try store.cursor(of: peer.replica) } catch let error as ShareLogError { throw .store(error) } catch { throw .store(.corruptMeta("cursors")) }
            receiver = EventReceiver(
                peer: peer.replica, peerEpoch: peer.epoch, cursor: cursor, follow: peer.directions.contains(.follow),
                maxBatchBytes: UInt32(clamping: options.maxBatchBytes))
        }
        if peer.role == .main, sends { sender = EventSender(peer: peer.replica, maxBatchBytes: options.maxBatchBytes) }
        if peer.role == .clip { if isClient { fetcher = ClipFetcher(names: names) } else { clipServer = ClipServer(options: options) } }
    }

    /// Runs the session to its end: both directions complete (client), the
    /// peer's `bye` (server), or `context.stopping`.
    func run(progress: ((SyncSummary) -> Void)? = nil) throws(SyncFailure) -> SyncSummary {
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
            let now = ContinuousClock.now
            let deadline = min(lastSent + options.heartbeatInterval, lastReceived + options.peerTimeout)
            switch try messages.receive(orWake: wake.descriptor, deadline: deadline) {
            case .message(let message):
                lastReceived = .now
                try handle(message)
                progress?(summaryNow())
            case .woken:
                wake.drain()
                try followCommits()
            case .timedOut:
                if ContinuousClock.now >= lastReceived + options.peerTimeout { throw .peerSilent(options.peerTimeout) }
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
            case .bye: peerSaidBye = true
            case .error(.shuttingDown, _): peerSaidBye = true
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
            case .pull where isClient && receiver.map({ ![.following, .done].contains($0.phase) }) == true:
                // Both ways at once, each side could be writing a batch
                // while the other is too, neither reading: a deadlock once
                // the socket buffers fill. So a client that pulls and pushes
                // answers the server's pull once its own has caught up; in
                // between it only writes acks, which the server reads.
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

    private func perform(_ actions: [SessionAction]) throws(SyncFailure) {
        for action in actions {
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
                try perform(mutateSender { $0.read(read) })
            case .readSnapshot(let after, let maxBytes):
                let batch: ReplicationBatch
                do {
                    batch = try store.replicationBatch(after: after, inEpoch: after == 0 ? nil : snapshotEpoch, maxBytes: maxBytes)
                } catch let error as ShareLogError { throw .store(error) } catch { throw .store(.corruptMeta("log")) }
                snapshotEpoch = batch.epoch
                try perform(mutateSender { $0.readSnapshot(batch, epoch: batch.epoch) })
            case .awaitCommit(let after):
                awaitingCommitAfter = after
                try followCommits()
            case .directionDone:
                continue
            }
        }
    }

    /// In follow mode, hands the sender the log's end once it has moved.
    private func followCommits() throws(SyncFailure) {
        guard let after = awaitingCommitAfter else { return }
        let last: UInt64
        do { last = try store.lastPosition() } catch let error as ShareLogError { throw .store(error) } catch { throw .store(.corruptMeta("log")) }
        guard last > after else { return }
        awaitingCommitAfter = nil
        try perform(mutateSender { $0.committed(last) })
    }

    private func apply(_ events: EncodedEvents, mark: CursorMark?) throws(SyncFailure) {
        let decoded: [Event]
        do { decoded = try events.decoded() } catch { throw .message(error) }
        do {
            let report: ApplyReport
            if let mark {
                let cursor = PeerCursor(peer: peer.replica, epoch: mark.epoch, position: mark.position, lastSeen: store.options.clock.now())
                report = try store.apply(decoded, advancing: cursor)
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
        do { try messages.send(message, deadline: writeDeadline) } catch { throw .transport(error) }
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
