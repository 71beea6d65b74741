import ShareLog
@testable import ShareSync

/// Runs one side of a session over a `ScriptedChannel` as the real
/// drivers do, through the same `HandshakeExchange` and `SessionRunner`:
/// the server's side as `ServerSession` does after TLS, a client's as
/// `SyncClient.run` does after connecting. The nonces are fixed and
/// nothing waits, so an input replays the same.
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
            let handshake = ServerHandshake(
                replica: store.replicaID, epoch: store.epoch, proofKey: key?.derived(for: .handshakeProof), nonce: ScriptedPeer.nonce)
            let peer = try HandshakeExchange.server(handshake, over: messages, store: store, deadline: nil)
            return try SessionRunner(store: store, messages: messages, peer: peer, isClient: false, options: options, wake: wake, context: context).run()
        }
        let role: SyncRole = script.side == .clipClient ? .clip : .main
        let handshake = ClientHandshake(
            role: role, directions: role == .clip ? [] : script.directions, replica: store.replicaID, epoch: store.epoch, key: key,
            nonce: ScriptedPeer.nonce)
        let (peer, _) = try HandshakeExchange.client(handshake, over: messages, store: { store }, deadline: nil)
        let runner = try SessionRunner(
            store: store, messages: messages, peer: peer, isClient: true, options: options, wake: wake, context: context,
            fetch: role == .clip ? Self.clipNames : [])
        return try runner.run()
    }
}
