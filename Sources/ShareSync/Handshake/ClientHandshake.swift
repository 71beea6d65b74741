import ShareLog

/// The client's side of the handshake (docs/SYNC.md "Handshake"), as a
/// machine that performs no I/O: `hello`, then the server's `welcome`,
/// then, for a main that holds a key, its own proof in `authenticate`,
/// then the server's `accepted`. With a key, the client checks the
/// server's proofs of the welcome and of the acceptance, so it knows the
/// server holds the key and that `heldOfYou` is the server's own word.
struct ClientHandshake {
    /// Where the handshake is. Each phase carries what the next step needs.
    enum Phase: Equatable {
        case awaitingWelcome
        case awaitingAcceptance(HandshakeTranscript)
        case established(EstablishedPeer)
    }

    let hello: Message.Hello
    /// The proof key (`SyncKey.derived(for: .handshakeProof)`), or nil.
    let proofKey: SyncKey?
    private(set) var phase = Phase.awaitingWelcome

    init(role: SyncRole, directions: SyncDirections, replica: ReplicaID, epoch: Epoch, key: SyncKey?, nonce: HandshakeNonce) {
        hello = Message.Hello(versions: SyncProtocol.versions, role: role, directions: directions, replica: replica, epoch: epoch, nonce: nonce)
        proofKey = key?.derived(for: .handshakeProof)
    }

    /// The first message.
    var start: Message { .hello(hello) }

    /// The established peer, once the server's `accepted` has come.
    var peer: EstablishedPeer? {
        if case .established(let peer) = phase { peer } else { nil }
    }

    /// Takes the server's next message; returns what to send (the proof).
    mutating func receive(_ message: Message) throws(HandshakeFailure) -> [Message] {
        switch (phase, message) {
        case (.awaitingWelcome, .welcome(let welcome)):
            guard hello.versions.contains(welcome.version) else {
                throw .versionMismatch(ours: hello.versions, theirs: welcome.version ... welcome.version)
            }
            var agreed = welcome
            agreed.proof = nil
            let transcript = HandshakeTranscript(hello: hello, welcome: agreed)
            phase = .awaitingAcceptance(transcript)
            guard let proofKey else {
                // A keyed server waits for a main's proof: say at once why
                // there is none, rather than wait out its deadline.
                guard hello.role == .clip || welcome.proof == nil else {
                    throw .notAuthenticated("the server holds a key, and a main replica must prove it holds the key too; pass the server's --key-file")
                }
                return []
            }
            guard let proof = welcome.proof else {
                throw .notAuthenticated("the server gave no proof that it holds the key; start it with the same --key-file")
            }
            guard transcript.verify(proof, .serverProof, under: proofKey) else {
                throw .notAuthenticated("the server's proof does not match this key: the two sides hold different keys")
            }
            // A clip proves nothing: it may only fetch, key or no key.
            return hello.role == .main ? [.authenticate(proof: transcript.proof(.clientProof, under: proofKey))] : []
        case (.awaitingAcceptance(let transcript), .accepted(let accepted)):
            if let proofKey {
                guard let proof = accepted.proof, transcript.verify(proof, .acceptance, under: proofKey, heldOfYou: accepted.heldOfYou) else {
                    throw .notAuthenticated("the server's acceptance carries no proof under this key: something on the path changed it")
                }
            }
            let welcome = transcript.welcome
            phase = .established(
                EstablishedPeer(
                    replica: welcome.replica, epoch: welcome.epoch, role: hello.role, directions: hello.directions,
                    version: welcome.version, heldOfYou: accepted.heldOfYou))
            return []
        case (_, .error(let code, let text)):
            throw .refused(code, text)
        default:
            throw .unexpected(message.type)
        }
    }
}
