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
            let handshake = ServerHandshake(
                replica: store.replicaID, epoch: store.epoch, key: configuration.key, nonce: HandshakeNonce(bytes: SyncKey.randomNonce())!)
            let peer = try HandshakeExchange.server(handshake, over: messages, store: store, deadline: deadline)
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
