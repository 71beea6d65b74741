import ShareLog

/// The server's side of the handshake (docs/SYNC.md "Handshake"). It
/// answers `hello` with `welcome` (and its proof, when it holds a key);
/// a `main` client must then prove it holds the key too, before anything
/// else is accepted. A `clip` needs no key and may only fetch.
struct ServerHandshake {
    enum Phase: Equatable, Sendable {
        case awaitingHello
        case awaitingProof
        case established
    }

    let replica: ReplicaID
    let epoch: Epoch
    let key: SyncKey?
    let nonce: HandshakeNonce
    private(set) var phase = Phase.awaitingHello
    private var transcript: HandshakeTranscript?
    private var hello: Message.Hello?

    init(replica: ReplicaID, epoch: Epoch, key: SyncKey?, nonce: HandshakeNonce) {
        self.replica = replica
        self.epoch = epoch
        self.key = key
        self.nonce = nonce
    }

    /// The client's `hello`: the welcome to send, and the peer when the
    /// session is established with it (no proof is due).
    ///
    /// - Parameter heldOfYou: the highest counter of the client's origin
    ///   this store holds (`ShareStore.highestCounter(of:)`).
    mutating func receive(hello message: Message, heldOfYou: (ReplicaID) throws -> UInt64) throws -> (welcome: Message, peer: EstablishedPeer?) {
        guard phase == .awaitingHello, case .hello(let hello) = message else { throw HandshakeFailure.unexpected(message.type) }
        let highest = min(hello.versions.upperBound, SyncProtocol.versions.upperBound)
        guard max(hello.versions.lowerBound, SyncProtocol.versions.lowerBound) <= highest else {
            throw HandshakeFailure.versionMismatch(ours: SyncProtocol.versions, theirs: hello.versions)
        }
        if hello.role == .clip, !hello.directions.isEmpty {
            throw HandshakeFailure.roleForbidden("a clip fetches shares by record name; it may not pull, push or follow")
        }
        if hello.replica == replica {
            throw HandshakeFailure.roleForbidden("the client has this store's own replica id: a store cannot sync with itself or its copy")
        }
        let transcript = HandshakeTranscript(hello: hello, serverReplica: replica, serverNonce: nonce)
        self.transcript = transcript
        self.hello = hello
        let welcome = Message.Welcome(
            version: highest, replica: replica, epoch: epoch, nonce: nonce, heldOfYou: try heldOfYou(hello.replica),
            proof: key.map { transcript.proof(by: .server, under: $0) })
        let needsProof = hello.role == .main && key != nil
        phase = needsProof ? .awaitingProof : .established
        return (.welcome(welcome), needsProof ? nil : peer(hello, version: highest))
    }

    /// The client's `authenticate`; an `error` in its place is the client
    /// refusing the server (`.refused`).
    mutating func receive(proof message: Message) throws(HandshakeFailure) -> EstablishedPeer {
        guard phase == .awaitingProof, let hello, let transcript, let key else { throw .unexpected(message.type) }
        // A client that found the server's proof wrong says so: its reason
        // is the one to log, not a missing proof.
        if case .error(let code, let text) = message { throw .refused(code, text) }
        guard case .authenticate(let proof) = message else {
            throw .notAuthenticated("a main replica must prove it holds the key before anything else; give the client the server's --key-file")
        }
        guard transcript.verify(proof, by: .client, under: key) else {
            throw .notAuthenticated("the client's proof does not match this key: the two sides hold different keys")
        }
        phase = .established
        return peer(hello, version: min(hello.versions.upperBound, SyncProtocol.versions.upperBound))
    }

    private func peer(_ hello: Message.Hello, version: UInt16) -> EstablishedPeer {
        EstablishedPeer(replica: hello.replica, epoch: hello.epoch, role: hello.role, directions: hello.directions, version: version, heldOfYou: 0)
    }
}
