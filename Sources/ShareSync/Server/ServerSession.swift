import ShareLog
import SharePrimitives

/// One server session on its own thread: after the `Vestibule` admitted
/// it (`run`), or with its handshake too, over standard input and output
/// (`serve`).
struct ServerSession {
    let store: ShareStore
    let configuration: SyncServerConfiguration
    let context: SessionContext

    /// Serves `channel`, the only session of `serve --stdio`: the
    /// handshake under `handshakeTimeout`, with proofs under `proofKey`
    /// (nil: none asked), then the session, to its end. Returns its log
    /// record.
    func serve(_ channel: any ByteChannel, proofKey: SyncKey?) -> LogRecord {
        defer { channel.close() }
        let started = ContinuousClock.now
        let messages = MessageChannel(channel, maxFrameBytes: configuration.options.maxFrameBytes)
        let handshake = ServerHandshake(
            replica: store.replicaID, epoch: store.epoch, proofKey: proofKey, nonce: HandshakeNonce(bytes: SyncKey.randomNonce())!)
        do {
            let peer = try HandshakeExchange.server(handshake, over: messages, store: store, deadline: started + configuration.options.handshakeTimeout)
            return runSession(messages, peer: peer, peerText: "\(channel)", serving: nil, wake: try context.registeredSignal(), acceptedAt: started)
                .logRecord
        } catch {
            return LogRecord(
                .warning, "sync.connection.closed", "session \(channel): closed: \(error)",
                [("peer", LogValue("\(channel)")), ("reason", LogValue("\(error)"))])
        }
    }

    /// Runs an admitted session to its end with its wake-up signal `wake`
    /// (made before it was admitted), closes its channel and says how it
    /// ended.
    func run(
        _ messages: MessageChannel, peer: EstablishedPeer, peerText: String, serving clips: ClipServer, wake: WakeSignal,
        acceptedAt: ContinuousClock.Instant
    ) -> SessionEnd {
        defer { messages.channel.close() }
        context.register(wake)
        return runSession(messages, peer: peer, peerText: peerText, serving: clips, wake: wake, acceptedAt: acceptedAt)
    }

    /// Runs the session with `wake`, registered with the context, which it
    /// releases.
    private func runSession(
        _ messages: MessageChannel, peer: EstablishedPeer, peerText: String, serving clips: ClipServer?, wake: WakeSignal,
        acceptedAt started: ContinuousClock.Instant
    ) -> SessionEnd {
        defer { context.release(wake) }
        let outcome = Result { () throws(SyncFailure) in
            let runner = try SessionRunner(
                store: store, messages: messages, peer: peer, isClient: false, options: configuration.options, wake: wake, context: context,
                serving: clips)
            return try runner.run()
        }
        return SessionEnd(peerText: "\(peerText) \(peer.role) \(peer.replica)", peer: peer, outcome: outcome, duration: .now - started)
    }
}
