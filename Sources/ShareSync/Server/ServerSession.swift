import ShareLog

/// One accepted connection, on its own thread: TLS (for TCP), the server's
/// side of the handshake under `handshakeTimeout`, then the session.
struct ServerSession {
    let store: ShareStore
    let configuration: SyncServerConfiguration
    let context: SessionContext

    /// Serves `connection`, accepted at `started`, to its end and returns
    /// its log line. The handshake deadline runs from `started`.
    func serve(_ connection: any ByteChannel, acceptedAt started: ContinuousClock.Instant = .now) -> String {
        var peerText = "\(connection)"
        var channel = connection
        defer { channel.close() }
        do {
            let deadline = started + configuration.options.handshakeTimeout
            if case .tcp = configuration.endpoint, let key = configuration.key, let socket = connection as? SocketChannel {
                do { channel = try TLSChannel.server(over: socket, key: key, deadline: deadline) } catch { throw SyncFailure.transport(error) }
            }
            let messages = MessageChannel(channel, maxFrameBytes: configuration.options.maxFrameBytes)
            let wake = try context.registeredSignal()
            defer { context.release(wake) }
            let peer = try handshake(messages, deadline: deadline)
            peerText += " \(peer.role) \(peer.replica)"
            let runner = try SessionRunner(
                store: store, messages: messages, peer: peer, isClient: false, options: configuration.options, wake: wake, context: context)
            let summary = try runner.run()
            if let renewal = summary.identityRenewal {
                return "session \(peerText) \(Self.directions(peer)): ended: this store was restored from an older copy (\(renewal.reason)); "
                    + "it is now replica \(renewal.replica), and the client was told to connect again"
            }
            return "session \(peerText) \(Self.directions(peer)): ended well; " + Self.figures(summary, since: started)
        } catch let failure as SyncFailure {
            return "session \(peerText): closed: \(failure)"
        } catch {
            return "session \(peerText): closed: \(error)"
        }
    }

    private func handshake(_ messages: MessageChannel, deadline: ContinuousClock.Instant) throws(SyncFailure) -> EstablishedPeer {
        var handshake = ServerHandshake(
            replica: store.replicaID, epoch: store.epoch, key: configuration.key, nonce: HandshakeNonce(bytes: SyncKey.randomNonce())!)
        do {
            let hello = try next(messages, deadline: deadline, waitingFor: "a hello")
            let (welcome, established) = try handshake.receive(hello: hello) { replica in try store.highestCounter(of: replica) }
            try send(welcome, messages, deadline)
            if let established { return established }
            return try handshake.receive(proof: try next(messages, deadline: deadline, waitingFor: "the client's proof"))
        } catch let failure as HandshakeFailure {
            if let message = SyncFailure.handshake(failure).errorMessage { try? messages.send(message, deadline: deadline) }
            throw .handshake(failure)
        } catch let failure as SyncFailure {
            if let message = failure.errorMessage { try? messages.send(message, deadline: deadline) }
            throw failure
        } catch let error as ShareLogError {
            throw .store(error)
        } catch {
            throw .handshake(.unexpected(.hello))
        }
    }

    private func next(_ messages: MessageChannel, deadline: ContinuousClock.Instant, waitingFor what: String) throws(SyncFailure) -> Message {
        switch try messages.receive(orWake: nil, deadline: deadline) {
        case .message(let message): return message
        case .closed: throw .peerClosed
        case .timedOut, .woken: throw .transport(.timedOut(waitingFor: "\(what) (handshake timeout)"))
        }
    }

    private func send(_ message: Message, _ messages: MessageChannel, _ deadline: ContinuousClock.Instant) throws(SyncFailure) {
        do { try messages.send(message, deadline: deadline) } catch { throw .transport(error) }
    }

    private static func directions(_ peer: EstablishedPeer) -> String {
        guard peer.role == .main else { return "fetch" }
        let ways = [(SyncDirections.pull, "pull"), (.push, "push"), (.follow, "follow")].filter { peer.directions.contains($0.0) }.map(\.1)
        return ways.isEmpty ? "nothing" : ways.joined(separator: "+")
    }

    static func figures(_ summary: SyncSummary, since start: ContinuousClock.Instant) -> String {
        let elapsed = ContinuousClock.now - start
        let milliseconds = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        return "received \(summary.eventsReceived) events (\(summary.eventsApplied) new), sent \(summary.eventsSent), "
            + "\(summary.bytesIn) bytes in, \(summary.bytesOut) out, \(milliseconds) ms"
    }
}
