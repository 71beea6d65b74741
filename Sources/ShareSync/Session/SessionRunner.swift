import ShareLog

/// One established session's loop on the calling thread: reads the peer's
/// messages, hands them to the session's `SessionMachine`, and carries out
/// the actions it returns against the store and the channel (docs/SYNC.md
/// "Sessions"). The rules live in the machine; this type does the I/O.
///
/// Each batch is applied, and its cursor advanced, in one write
/// transaction before it is acknowledged; a stop or a failure between two
/// actions leaves nothing half-applied. Heartbeats go out when this side
/// has been quiet for `heartbeatInterval`, and a peer quiet for
/// `peerTimeout` ends the session. A server ends a clip's session that
/// asks for nothing for `clipIdleTimeout`.
final class SessionRunner {
    let store: ShareStore
    let messages: MessageChannel
    let options: SessionOptions
    let wake: WakeSignal
    let context: SessionContext
    private var machine: SessionMachine
    /// Answers a clip's fetches (a server's clip session only).
    private let clipServer: ClipServer?
    private(set) var summary = SyncSummary()
    private var lastSent = ContinuousClock.now
    /// When the peer last sent a byte, and how many bytes it had sent then.
    private var lastReceived = ContinuousClock.now
    private var bytesSeen = 0
    /// When a clip last asked for something (its idle timeout runs from it).
    private var lastFetch = ContinuousClock.now

    init(
        store: ShareStore, messages: MessageChannel, peer: EstablishedPeer, isClient: Bool, options: SessionOptions,
        wake: WakeSignal, context: SessionContext, fetch names: [RecordName] = [], serving clips: ClipServer? = nil
    ) throws(SyncFailure) {
        self.store = store
        self.messages = messages
        self.options = options
        self.wake = wake
        self.context = context
        summary.peer = peer.replica
        summary.role = peer.role
        summary.directions = peer.directions
        let side: SessionMachine.Side = isClient ? .client : .server
        var receiving: (cursor: PeerCursor?, heldOfPeer: UInt64)?
        if SessionMachine.receives(side, peer) {
            do {
                receiving = (try store.cursor(of: peer.replica), try store.highestCounter(of: peer.replica))
            } catch { throw .store(error) }
        }
        machine = SessionMachine(side: side, peer: peer, maxBatchBytes: options.maxBatchBytes, receiving: receiving, fetching: names)
        clipServer =
            machine.answersFetches
            ? clips ?? ClipServer(options: options, throttle: GuessingThrottle(options), client: messages.channel.description) : nil
        // A server takes from a clip small fetches and nothing else; from
        // a main, any frame up to the session's limit.
        if !isClient { messages.limits = peer.role == .clip ? .clip : .all(upTo: options.maxFrameBytes) }
    }

    /// Runs the session to its end: both directions complete (client), the
    /// peer's `bye` or stop (server), or `context.stopping`. A failure is
    /// told to the peer with an `error` message, when the stream still
    /// carries one, before it is thrown.
    ///
    /// A connection lost while the peer's last words wait unread is not a
    /// failure: a client that stops sends `error(shuttingDown)` (or `bye`)
    /// and closes at once, and this side's answer to its previous message
    /// can then meet the closed connection before the parting message is
    /// read.
    func run(progress: ((SyncSummary) -> Void)? = nil) throws(SyncFailure) -> SyncSummary {
        do {
            return try loop(progress: progress)
        } catch {
            if error.isConnectionLost, peerEndedBeforeClosing() { return finish() }
            if let message = error.errorMessage { try? messages.send(message, deadline: .now + .seconds(1)) }
            throw error
        }
    }

    /// Whether what the peer sent before its connection went, read now
    /// without waiting, ends the session in good order: a client's `bye`
    /// or `error(shuttingDown)`, taken by the machine as if it had come in
    /// time. Anything read before it is dropped: the session is over, and
    /// nothing the peer said then can be answered.
    private func peerEndedBeforeClosing() -> Bool {
        while case .message(let message) = try? messages.receive(orWake: nil, deadline: .now) {
            switch message {
            case .bye, .error(.shuttingDown, _):
                _ = try? machine.receive(message)
                return machine.isComplete
            default:
                continue
            }
        }
        return false
    }

    private func loop(progress: ((SyncSummary) -> Void)?) throws(SyncFailure) -> SyncSummary {
        try perform(machine.start())
        while !machine.isComplete {
            if context.isStopping {
                let side = machine.side == .client ? "client" : "server"
                try? messages.send(.error(code: .shuttingDown, message: "the \(side) is stopping"), deadline: .now + options.writeTimeout)
                return finish()
            }
            var deadline = min(lastSent + options.heartbeatInterval, lastReceived + options.peerTimeout)
            if clipServer != nil { deadline = min(deadline, lastFetch + options.clipIdleTimeout) }
            let incoming = try messages.receive(orWake: wake.descriptor, deadline: deadline)
            // Any byte counts as a sign of life: on a slow link one batch
            // can take longer than the peer timeout to arrive whole.
            if messages.bytesIn != bytesSeen {
                bytesSeen = messages.bytesIn
                lastReceived = .now
            }
            switch incoming {
            case .message(let message):
                let actions: [SessionAction]
                do { actions = try machine.receive(message) } catch { throw .session(error) }
                try perform(actions)
                progress?(summaryNow())
            case .woken:
                wake.drain()
                try followCommits()
            case .timedOut:
                let now = ContinuousClock.now
                if now >= lastReceived + options.peerTimeout { throw .peerSilent(options.peerTimeout) }
                if clipServer != nil, now >= lastFetch + options.clipIdleTimeout { throw .session(.clipIdle(options.clipIdleTimeout)) }
                if now >= lastSent + options.heartbeatInterval { try send(.heartbeat) }
                // Commits by other processes are not announced: look on each tick.
                try followCommits()
            case .closed:
                guard machine.isComplete else { throw .peerClosed }
                return finish()
            }
        }
        if machine.side == .client, !machine.ended { try send(.bye) }
        return finish()
    }

    /// Carries out `actions` in order. A read's result brings more actions,
    /// which go first: a loop over a queue, not recursion, so a snapshot of
    /// any length runs in constant stack.
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
                    read = .batch(try store.replicationBatch(after: after, inEpoch: epoch, maxBytes: maxBytes, excludingOrigin: machine.peer.replica))
                } catch .snapshotRequired(let reason) {
                    read = .snapshotRequired(reason, current: store.epoch)
                } catch { throw .store(error) }
                queue = machine.read(read) + queue
            case .readSnapshot(let after, let maxBytes):
                let batch: ReplicationBatch
                do {
                    batch = try store.snapshotBatch(after: after, maxBytes: maxBytes, excludingOrigin: machine.peer.replica)
                } catch { throw .store(error) }
                queue = machine.readSnapshot(batch) + queue
            case .awaitCommit:
                queue = try committedActions() + queue
            case .directionDone:
                continue
            case .checkClaim:
                let made: UInt64
                do { made = try store.originCounter() } catch { throw .store(error) }
                do { queue = try machine.claimChecked(madeHere: made, by: store.replicaID) + queue } catch { throw .session(error) }
            case .answerFetch(let names):
                try answer(names)
            }
        }
    }

    /// In follow mode, hands the machine the log's end once it has moved.
    private func followCommits() throws(SyncFailure) {
        try perform(committedActions())
    }

    /// What the sender does now that the log has moved past where it
    /// waits; nothing when it has not, or when it does not wait.
    private func committedActions() throws(SyncFailure) -> [SessionAction] {
        guard machine.awaitingCommitAfter != nil else { return [] }
        let last: UInt64
        do { last = try store.lastPosition() } catch { throw .store(error) }
        return machine.committed(last)
    }

    /// Answers a clip's fetch, after the delay its guessing earned.
    private func answer(_ names: [RecordName]) throws(SyncFailure) {
        guard let clipServer else { return }
        let answer: (records: [Message.Record], delay: Duration?)
        do { answer = try clipServer.answer(names, from: store) } catch { throw .store(error) }
        if let delay = answer.delay { pause(delay) }
        lastFetch = .now
        try send(.records(answer.records))
    }

    private func apply(_ events: EncodedEvents, mark: CursorMark?) throws(SyncFailure) {
        let decoded: [Event]
        do { decoded = try events.decoded() } catch { throw .message(error) }
        do {
            let report: ApplyReport
            if let mark {
                let cursor = PeerCursor(peer: machine.peer.replica, epoch: mark.epoch, position: mark.position, lastSeen: store.options.clock.now())
                report = try mark.resets ? store.apply(decoded, resetting: cursor) : store.apply(decoded, advancing: cursor)
            } else {
                report = try store.apply(decoded)
            }
            summary.eventsReceived += decoded.count
            summary.eventsApplied += report.applied
        } catch { throw .store(error) }
    }

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
        now.eventsSent = machine.sender?.eventsSent ?? 0
        now.bytesIn = messages.bytesIn
        now.bytesOut = messages.bytesOut
        now.snapshots = machine.receiver?.snapshotsTaken ?? 0
        now.found = machine.fetcher?.found ?? []
        now.unknown = machine.fetcher?.unknown ?? []
        return now
    }

    private func finish() -> SyncSummary {
        summary = summaryNow()
        return summary
    }
}
