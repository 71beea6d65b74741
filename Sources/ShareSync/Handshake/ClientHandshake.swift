import ShareLog

/// The client's side of the handshake (docs/SYNC.md "Handshake"): `hello`,
/// then the server's `welcome`, then, when the client holds a key, its own
/// proof in `authenticate`. With a key, the client also checks the
/// server's proof, so each side knows the other holds the key.
struct ClientHandshake {
    let hello: Message.Hello
    let key: SyncKey?

    init(role: SyncRole, directions: SyncDirections, replica: ReplicaID, epoch: Epoch, key: SyncKey?, nonce: HandshakeNonce) {
        hello = Message.Hello(versions: SyncProtocol.versions, role: role, directions: directions, replica: replica, epoch: epoch, nonce: nonce)
        self.key = key
    }

    /// The first message.
    var start: Message { .hello(hello) }

    /// What the server's answer establishes, and what to send then.
    func receive(_ message: Message) throws(HandshakeFailure) -> (peer: EstablishedPeer, send: [Message]) {
        switch message {
        case .welcome(let welcome):
            guard hello.versions.contains(welcome.version) else {
                throw .versionMismatch(ours: hello.versions, theirs: welcome.version ... welcome.version)
            }
            let transcript = HandshakeTranscript(hello: hello, serverReplica: welcome.replica, serverNonce: welcome.nonce)
            var send: [Message] = []
            if let key {
                guard let proof = welcome.proof else {
                    throw .notAuthenticated("the server gave no proof that it holds the key; start it with the same --key-file")
                }
                guard transcript.verify(proof, by: .server, under: key) else {
                    throw .notAuthenticated("the server's proof does not match this key: the two sides hold different keys")
                }
                send.append(.authenticate(proof: transcript.proof(by: .client, under: key)))
            }
            let peer = EstablishedPeer(
                replica: welcome.replica, epoch: welcome.epoch, role: hello.role, directions: hello.directions,
                version: welcome.version, heldOfYou: welcome.heldOfYou)
            return (peer, send)
        case .error(let code, let text):
            throw .refused(code, text)
        default:
            throw .unexpected(message.type)
        }
    }
}
