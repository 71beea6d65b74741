import Foundation
import ShareLog
import SharePrimitives

/// Serves a store to sync clients: many sessions at once, one thread
/// each, until `context.stop()` (docs/SYNC.md "Server").
///
/// A connection is first an `Arrival` in the accept thread's `Vestibule`:
/// its TLS handshake (over TCP) and its sync handshake run there, without
/// a thread, under the handshake deadline and a total cap. It gets a
/// session thread, and a place, only once it is an authenticated main or
/// a clip, and then only if its role's pool has room (`SessionPlaces`:
/// `maxConnections` mains, `maxClipSessions` clips); otherwise it is told
/// `busy`, inside TLS on the TCP port. So a stranger without the key, or
/// any number of clips, can never keep a main out. The accept loop
/// survives running out of descriptors (`DescriptorShortage`). Sessions
/// have bounded memory (one frame and two batches in flight) and a write
/// deadline for slow readers that stalls only that session's thread.
///
/// Session threads have 1 MiB stacks: glibc keeps 40 MiB of freed stacks
/// for reuse, so at the default 8 MiB every session beyond the fifth
/// concurrent one mapped a new stack and unmapped it at its end, flushing
/// the TLB of every core (about a fifth more clip fetches a second at 8
/// and 50 connections with 1 MiB; BENCHMARKS.md, sync). On stop, every
/// session ends at its next step (each batch is one transaction, so
/// nothing is half-applied), the listener closes and its socket file goes.
///
/// The key can be replaced while the server runs (`replaceKey(with:)`):
/// connections accepted after it must hold the new one, and sessions
/// already running go on under the key they were accepted with.
public final class SyncServer: Sendable {
    public let store: ShareStore
    /// How the server listens and what it allows. Its `key` is the key the
    /// server started with; `replaceKey(with:)` replaces it for the
    /// connections accepted after it.
    public let configuration: SyncServerConfiguration
    private let places: SessionPlaces
    private let throttle: GuessingThrottle
    /// The key new connections must hold, with its TLS context and proof
    /// key; nil until `serve` (or `replaceKey`) first needs it.
    private let keys = Locked<ServerKeys?>(nil)

    public init(store: ShareStore, configuration: SyncServerConfiguration) {
        self.store = store
        self.configuration = configuration
        places = SessionPlaces(mains: configuration.maxConnections, clips: configuration.maxClipSessions)
        throttle = GuessingThrottle(configuration.options)
    }

    /// Makes `key` the key that every connection accepted from now on must
    /// hold: over TCP its TLS pre-shared key and, on every transport, its
    /// handshake proof, both at once. Sessions already running, and
    /// connections whose handshake has begun, go on under the key they
    /// were accepted with; nothing is closed. Safe from any thread, while
    /// `serve` runs or before it starts.
    ///
    /// - Throws: `SyncFailure.transport` when OpenSSL cannot set up TLS
    ///   under `key`; the server then keeps the key it had.
    public func replaceKey(with key: SyncKey) throws(SyncFailure) {
        // Made whole before the swap: a failure leaves the old keys in place.
        let replacement = try ServerKeys(key: key, overTCP: isTCP)
        keys.withLock { $0 = replacement }
    }

    /// The keys new connections must hold, made from `configuration.key`
    /// the first time.
    private func currentKeys() throws(SyncFailure) -> ServerKeys {
        try keys.withLock { keys throws(SyncFailure) in
            if let keys { return keys }
            let made = try ServerKeys(key: configuration.key, overTCP: isTCP)
            keys = made
            return made
        }
    }

    private var isTCP: Bool {
        if case .tcp = configuration.endpoint { return true }
        return false
    }

    /// Listens on `configuration.endpoint` (not `.stdio`) and serves until
    /// `context` stops, then waits for the sessions to end.
    ///
    /// - Parameter ready: called once the listener is up, with the
    ///   endpoint it is on (a real port for `tcp:…:0`).
    public func serve(context: SessionContext, ready: (Endpoint) -> Void = { _ in }) throws(SyncFailure) {
        // Checked before listening: TCP without a key never listens.
        _ = try currentKeys()
        let listener: Listener
        do { listener = try Listener(listeningOn: configuration.endpoint) } catch { throw .transport(error) }
        defer { listener.close() }
        let wake = try context.registeredSignal()
        defer { context.release(wake) }
        let sessions = DispatchGroup()
        configuration.log(
            LogRecord(.info, "sync.serving", "serving \(store.path) on \(listener.endpoint)",
                      [("store", LogValue(store.path)), ("endpoint", LogValue("\(listener.endpoint)"))]))
        ready(listener.endpoint)
        var vestibule = Vestibule(capacity: configuration.maxWaitingConnections, timeout: configuration.options.handshakeTimeout)
        defer { vestibule.closeAll() }
        var shortage = DescriptorShortage()
        let handshake = Handshakes(server: self)
        try withCommitWatch(store: store, context: context, when: true) { () throws(SyncFailure) in
            while !context.isStopping {
                let turn: Vestibule.Turn
                do throws(TransportError) {
                    turn = try vestibule.wait(
                        listener: listener.descriptor, listening: shortage.isListening(at: .now), wake: wake.descriptor, until: shortage.pausedUntil)
                } catch { throw .transport(error) }
                if turn.woken { wake.drain() }
                for arrival in turn.expired { drop(arrival, because: .transport(.timedOut(waitingFor: arrival.waitingFor))) }
                for arrival in turn.ready where vestibule.holds(arrival) { step(arrival, in: &vestibule, context: context, group: sessions) }
                if turn.acceptable { accept(from: listener, into: &vestibule, handshake: handshake, shortage: &shortage, context: context, group: sessions) }
            }
        }
        let running = places.inUse
        configuration.log(
            LogRecord(.info, "sync.stopping", running == 0 ? "stopping" : "stopping: waiting for \(running) session\(running == 1 ? "" : "s") to end",
                      [("sessions", LogValue(running))]))
        _ = sessions.wait(timeout: .now() + .seconds(Int(configuration.options.writeTimeout.components.seconds) + 5))
        configuration.log(LogRecord(.info, "sync.stopped", "stopped"))
    }

    /// Serves one session over standard input and output, under the key
    /// in use when it starts; returns its log record.
    public func serveStdio(context: SessionContext) -> LogRecord {
        let proofKey: SyncKey?
        do { proofKey = try currentKeys().proofKey } catch {
            return LogRecord(.warning, "sync.connection.closed", "session stdio: closed: \(error)", [("peer", "stdio"), ("reason", LogValue("\(error)"))])
        }
        return ServerSession(store: store, configuration: configuration, context: context).serve(StdioChannel(), proofKey: proofKey)
    }

    /// What every arrival's handshake starts from: the keys in use when it
    /// is accepted, read once, so its TLS and its proof agree.
    private struct Handshakes {
        let server: SyncServer

        func arrival(_ connection: sending SocketChannel) throws(TransportError) -> Arrival {
            // `serve` made the keys before it listened; a replacement is
            // always whole, so this never fails.
            guard let keys = server.keys.withLock({ $0 }) else { preconditionFailure("a server accepts only after it made its keys") }
            let store = server.store
            let machine = ServerHandshake(
                replica: store.replicaID, epoch: store.epoch, proofKey: keys.proofKey, nonce: HandshakeNonce(bytes: SyncKey.randomNonce())!,
                allowsClips: keys.tls == nil)
            return try Arrival(connection, acceptedAt: .now, tls: keys.tls, handshake: machine)
        }
    }

    /// Accepts the connections the listener holds, up to `maxConnections`
    /// in one turn so that the arrivals are served too, seats them, and
    /// runs the first step of each handshake (its bytes may be there).
    private func accept(
        from listener: Listener, into vestibule: inout Vestibule, handshake: Handshakes, shortage: inout DescriptorShortage,
        context: SessionContext, group: DispatchGroup
    ) {
        for _ in 0..<configuration.maxConnections {
            let arrival: Arrival
            do throws(TransportError) {
                arrival = try handshake.arrival(try listener.accept(deadline: .now))
                shortage.recovered()
            } catch {
                if case .timedOut = error { return }
                guard DescriptorShortage.isShortage(error) else {
                    configuration.log(LogRecord(.error, "sync.accept.failed", "accept failed: \(error)", [("reason", LogValue("\(error)"))]))
                    return
                }
                let oldest = vestibule.evictOldest()
                oldest?.close()
                if let line = shortage.failed(error, droppedOne: oldest != nil, at: .now) {
                    configuration.log(LogRecord(.warning, "sync.descriptors.short", line))
                }
                if oldest == nil { return }
                continue
            }
            if let displaced = vestibule.seat(arrival) {
                let reason = "\(vestibule.capacity) connections that have not finished their handshake are waiting, the most this server holds; "
                    + "this one had waited longest (a flood of connections that say nothing?)"
                configuration.log(
                    LogRecord(.warning, "sync.connection.closed", "session \(displaced.peer): closed: dropped before its handshake ended: \(reason)",
                              [("peer", LogValue(displaced.peer)), ("reason", "displaced")]))
                configuration.metrics?.refusedAtHandshake()
                displaced.close()
            }
            step(arrival, in: &vestibule, context: context, group: group)
        }
    }

    /// Runs `arrival`'s handshake as far as its bytes allow, and starts
    /// its session once it is admitted.
    private func step(_ arrival: Arrival, in vestibule: inout Vestibule, context: SessionContext, group: DispatchGroup) {
        switch arrival.advance(places: places, store: store, wakeSignal: { wakeSignal(evictingFrom: &vestibule, sparing: arrival) }) {
        case .waiting:
            return
        case .admitted(let peer, let wake):
            vestibule.remove(arrival)
            start(arrival.handOver(), peer: peer, wake: wake, arrival: arrival, context: context, group: group)
        case .busy(let role):
            vestibule.remove(arrival)
            configuration.log(
                LogRecord(.warning, "sync.connection.refused", "session \(arrival.peer): refused: busy (\(places.pool(role)))",
                          [("peer", LogValue(arrival.peer)), ("role", LogValue("\(role)")), ("reason", "busy")]))
            configuration.metrics?.refusedBusy()
            arrival.close()
        case .failed(let failure):
            vestibule.remove(arrival)
            drop(arrival, because: failure)
        }
    }

    /// A session's wake-up signal. Out of descriptors, the two arrivals
    /// that have waited longest (never `sparing`, the one being admitted)
    /// are dropped to make room for its pipe, and it is tried once more;
    /// nil when that fails too.
    private func wakeSignal(evictingFrom vestibule: inout Vestibule, sparing admitted: Arrival) -> WakeSignal? {
        do throws(TransportError) {
            return try WakeSignal()
        } catch where DescriptorShortage.isShortage(error) {
            for _ in 0..<2 {
                guard let oldest = vestibule.evictOldest(sparing: admitted) else { break }
                drop(oldest, because: .transport(error))
            }
            return try? WakeSignal()
        } catch {
            return nil
        }
    }

    /// Closes an arrival that never got a session, with its log line.
    private func drop(_ arrival: Arrival, because failure: SyncFailure) {
        configuration.log(
            LogRecord(.warning, "sync.connection.closed", "session \(arrival.peer): closed: \(failure)",
                      [("peer", LogValue(arrival.peer)), ("reason", LogValue("\(failure)"))]))
        configuration.metrics?.refusedAtHandshake()
        arrival.close()
    }

    /// Runs an admitted session on a thread of its own, which `messages`
    /// is handed to: nothing on the accept thread keeps it.
    private func start(
        _ messages: sending MessageChannel, peer: EstablishedPeer, wake: WakeSignal, arrival: Arrival, context: SessionContext,
        group: DispatchGroup
    ) {
        let session = ServerSession(store: store, configuration: configuration, context: context)
        let clips = ClipServer(options: configuration.options, throttle: throttle, client: arrival.client)
        let log = configuration.log
        let metrics = configuration.metrics
        let places = places
        let acceptedAt = arrival.acceptedAt
        let peerText = arrival.peer
        let handoff = Handoff(messages)
        metrics?.started(peer.role)
        group.enter()
        let thread = Thread {
            let messages = handoff.take()
            messages.adoptOnCurrentThread()
            let end = session.run(messages, peer: peer, peerText: peerText, serving: clips, wake: wake, acceptedAt: acceptedAt)
            places.release(peer.role)
            metrics?.ended(end)
            log(end.logRecord)
            group.leave()
        }
        thread.name = "sharelog-sync-session"
        thread.stackSize = 1 << 20
        thread.start()
    }
}
