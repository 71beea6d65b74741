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
    /// handshake under `handshakeTimeout`, then the session, to its end.
    /// Returns its log line.
    func serve(_ channel: any ByteChannel) -> String {
        defer { channel.close() }
        let started = ContinuousClock.now
        let messages = MessageChannel(channel, maxFrameBytes: configuration.options.maxFrameBytes)
        let handshake = ServerHandshake(
            replica: store.replicaID, epoch: store.epoch, proofKey: configuration.key?.derived(for: .handshakeProof),
            nonce: HandshakeNonce(bytes: SyncKey.randomNonce())!)
        do {
            let peer = try HandshakeExchange.server(handshake, over: messages, store: store, deadline: started + configuration.options.handshakeTimeout)
            return runSession(messages, peer: peer, peerText: "\(channel)", serving: nil, wake: try context.registeredSignal(), acceptedAt: started)
        } catch {
            return "session \(channel): closed: \(error)"
        }
    }

    /// Runs an admitted session to its end with its wake-up signal `wake`
    /// (made before it was admitted), closes its channel and returns its
    /// log line.
    func run(
        _ messages: MessageChannel, peer: EstablishedPeer, peerText: String, serving clips: ClipServer, wake: WakeSignal,
        acceptedAt: ContinuousClock.Instant
    ) -> String {
        defer { messages.channel.close() }
        context.register(wake)
        return runSession(messages, peer: peer, peerText: peerText, serving: clips, wake: wake, acceptedAt: acceptedAt)
    }

    /// Runs the session with `wake`, registered with the context, which it
    /// releases.
    private func runSession(
        _ messages: MessageChannel, peer: EstablishedPeer, peerText: String, serving clips: ClipServer?, wake: WakeSignal,
        acceptedAt started: ContinuousClock.Instant
    ) -> String {
        defer { context.release(wake) }
        let peerText = "\(peerText) \(peer.role) \(peer.replica)"
        do throws(SyncFailure) {
            let runner = try SessionRunner(
                store: store, messages: messages, peer: peer, isClient: false, options: configuration.options, wake: wake, context: context,
                serving: clips)
            let summary = try runner.run()
            return "session \(peerText): \(Self.directions(peer)): ended well; " + Self.figures(summary, since: started)
        } catch {
            return "session \(peerText): closed: \(error)"
        }
    }

    private static func directions(_ peer: EstablishedPeer) -> String {
        guard peer.role == .main else { return "fetch" }
        let ways = [(SyncDirections.pull, "pull"), (.push, "push"), (.follow, "follow")].filter { peer.directions.contains($0.0) }.map(\.1)
        return ways.isEmpty ? "nothing" : ways.joined(separator: "+")
    }

    static func figures(_ summary: SyncSummary, since start: ContinuousClock.Instant) -> String {
        let milliseconds = (ContinuousClock.now - start).wholeMilliseconds
        return "received \(summary.eventsReceived) events (\(summary.eventsApplied) new), sent \(summary.eventsSent), "
            + "\(summary.bytesIn) bytes in, \(summary.bytesOut) out, \(milliseconds) ms"
    }
}
