import ShareLog
@testable import ShareSync

/// Runs one side of a session over a `ScriptedChannel` as the real
/// drivers do: the server's side as `ServerSession` does after TLS (its
/// handshake, then `SessionRunner`), a client's as `SyncClient.run` does
/// after connecting. The nonces are fixed, so an input replays the same.
struct SessionDriver {
    /// What a clip client fetches: two names the peer holds, one it does not.
    static let clipNames = [ScriptedPeer.names[0], ScriptedPeer.names[1], ScriptedPeer.names[4]]

    let script: SessionScript
    let store: ShareStore
    let channel: ScriptedChannel

    func run() throws(SyncFailure) -> SyncSummary {
        var options = SessionOptions()
        // No pause for guessed names: the fuzzer would only wait.
        options.unknownFetchAllowance = .max
        let messages = MessageChannel(channel, maxFrameBytes: options.maxFrameBytes)
        let context = SessionContext()
        let wake = try context.registeredSignal()
        defer { context.release(wake) }
        let key = script.keyed ? ScriptedPeer.key : nil
        if script.side == .server {
            let peer = try serverHandshake(messages, key: key)
            return try SessionRunner(store: store, messages: messages, peer: peer, isClient: false, options: options, wake: wake, context: context).run()
        }
        let role: SyncRole = script.side == .clipClient ? .clip : .main
        let handshake = ClientHandshake(
            role: role, directions: role == .clip ? [] : script.directions, replica: store.replicaID, epoch: store.epoch, key: key,
            nonce: ScriptedPeer.nonce)
        try send(handshake.start, messages)
        let established: (peer: EstablishedPeer, send: [Message])
        let answer: Message
        do { answer = try next(messages) } catch {
            if let message = error.errorMessage { try? messages.send(message, deadline: nil) }
            throw error
        }
        do { established = try handshake.receive(answer) } catch {
            if let message = SyncFailure.handshake(error).errorMessage { try? messages.send(message, deadline: nil) }
            throw .handshake(error)
        }
        do {
            let made = try store.originCounter()
            if established.peer.heldOfYou > made {
                var summary = SyncSummary()
                summary.identityRenewal = try store.renewIdentity(reason: .peerHoldsNewerEvents(peerHolds: established.peer.heldOfYou, madeHere: made))
                try? messages.send(.bye, deadline: nil)
                return summary
            }
        } catch let error as ShareLogError { throw .store(error) } catch { throw .store(.corruptMeta("replica")) }
        for message in established.send { try send(message, messages) }
        let runner = try SessionRunner(
            store: store, messages: messages, peer: established.peer, isClient: true, options: options, wake: wake, context: context,
            fetch: role == .clip ? Self.clipNames : [])
        return try runner.run()
    }

    private func serverHandshake(_ messages: MessageChannel, key: SyncKey?) throws(SyncFailure) -> EstablishedPeer {
        var handshake = ServerHandshake(replica: store.replicaID, epoch: store.epoch, key: key, nonce: ScriptedPeer.nonce)
        do {
            let (welcome, established) = try handshake.receive(hello: try next(messages)) { replica in try store.highestCounter(of: replica) }
            try send(welcome, messages)
            if let established { return established }
            return try handshake.receive(proof: try next(messages))
        } catch let failure as HandshakeFailure {
            if let message = SyncFailure.handshake(failure).errorMessage { try? messages.send(message, deadline: nil) }
            throw .handshake(failure)
        } catch let failure as SyncFailure {
            if let message = failure.errorMessage { try? messages.send(message, deadline: nil) }
            throw failure
        } catch let error as ShareLogError {
            throw .store(error)
        } catch {
            throw .handshake(.unexpected(.hello))
        }
    }

    private func next(_ messages: MessageChannel) throws(SyncFailure) -> Message {
        switch try messages.receive(orWake: nil, deadline: nil) {
        case .message(let message): return message
        case .closed: throw .peerClosed
        case .timedOut, .woken: throw .peerSilent(.zero)
        }
    }

    private func send(_ message: Message, _ messages: MessageChannel) throws(SyncFailure) {
        do { try messages.send(message, deadline: nil) } catch { throw .transport(error) }
    }
}
