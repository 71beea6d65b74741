import ShareLog

/// The server's side of the handshake (docs/SYNC.md "Handshake"), as a
/// machine that performs no I/O: `receive` takes the client's messages and
/// returns what to answer, and `admit` ends the handshake once the server
/// has a place for the session.
///
/// It answers `hello` with `welcome` (and its proof, when it holds a key).
/// A `main` client of a keyed server must then prove it holds the key.
/// A `clip` needs no key and may only fetch, and only where `allowsClips`
/// (not on the TCP port, which serves mains only). What the server holds
/// of the client's own events (`heldOfYou`) is told in `accepted`, after
/// the proof, to a main about its own id alone; a clip is told 0, so a
/// stranger learns nothing about any replica.
struct ServerHandshake {
    /// Where the handshake is. Each phase carries what the next step needs.
    enum Phase: Equatable {
        case awaitingHello
        /// A keyed server waits for a main's proof.
        case awaitingProof(HandshakeTranscript)
        /// The client is authenticated, or needs no proof: it waits for a
        /// place (`admit`).
        case admitting(HandshakeTranscript)
        case established(EstablishedPeer)
    }

    let replica: ReplicaID
    let epoch: Epoch
    /// The proof key (`SyncKey.derived(for: .handshakeProof)`); nil for a
    /// server without a key.
    let proofKey: SyncKey?
    let nonce: HandshakeNonce
    /// Whether clips may connect here: not on the TCP port.
    let allowsClips: Bool
    private(set) var phase = Phase.awaitingHello

    init(replica: ReplicaID, epoch: Epoch, proofKey: SyncKey?, nonce: HandshakeNonce, allowsClips: Bool = true) {
        self.replica = replica
        self.epoch = epoch
        self.proofKey = proofKey
        self.nonce = nonce
        self.allowsClips = allowsClips
    }

    /// The frames the client may send now: the handshake's next message at
    /// its exact size, or an `error` or `bye`. Once the client waits for
    /// `accepted`, only those two; the session then sets its own limits.
    var frameLimits: FrameLimits {
        switch phase {
        case .awaitingHello: .handshake(expecting: .hello)
        case .awaitingProof: .handshake(expecting: .authenticate)
        case .admitting, .established: .handshake(expecting: .bye)
        }
    }

    /// The role of the client waiting for a place, while `admitting`.
    var admittingRole: SyncRole? {
        if case .admitting(let transcript) = phase { transcript.hello.role } else { nil }
    }

    /// Takes the client's next message; returns the answer to send (the
    /// welcome), if any. After it, `phase` is `.admitting` once the client
    /// is authenticated or needs no proof.
    ///
    /// - Throws: `HandshakeFailure`: the answer to send is its `error`.
    mutating func receive(_ message: Message) throws(HandshakeFailure) -> Message? {
        switch (phase, message) {
        case (.awaitingHello, .hello(let hello)):
            let welcome = try welcome(for: hello)
            let transcript = HandshakeTranscript(hello: hello, welcome: welcome)
            var answer = welcome
            answer.proof = proofKey.map { transcript.proof(.serverProof, under: $0) }
            phase = hello.role == .main && proofKey != nil ? .awaitingProof(transcript) : .admitting(transcript)
            return .welcome(answer)
        case (.awaitingProof(let transcript), .authenticate(let proof)):
            guard let proofKey, transcript.verify(proof, .clientProof, under: proofKey) else {
                throw .notAuthenticated("the client's proof does not match this key: the two sides hold different keys")
            }
            phase = .admitting(transcript)
            return nil
        // A client that found the server's proof wrong, or gives up, says
        // so: its reason is the one to log.
        case (_, .error(let code, let text)):
            throw .refused(code, text)
        case (.awaitingProof, _):
            throw .notAuthenticated("a main replica must prove it holds the key before anything else; give the client the server's --key-file")
        default:
            throw .unexpected(message.type)
        }
    }

    /// Ends the handshake of a client that is `admitting`: the `accepted`
    /// message to send. `heldOfYou` is asked for a main's own id only.
    ///
    /// - Precondition: `phase` is `.admitting`.
    mutating func admit<Failure: Error>(heldOfYou: (ReplicaID) throws(Failure) -> UInt64) throws(Failure) -> Message {
        guard case .admitting(let transcript) = phase else { preconditionFailure("admit(heldOfYou:) before the client is authenticated") }
        let hello = transcript.hello
        let held = hello.role == .main ? try heldOfYou(hello.replica) : 0
        let proof = proofKey.map { transcript.proof(.acceptance, under: $0, heldOfYou: held) }
        phase = .established(
            EstablishedPeer(
                replica: hello.replica, epoch: hello.epoch, role: hello.role, directions: hello.directions,
                version: transcript.welcome.version, heldOfYou: 0))
        return .accepted(Message.Accepted(heldOfYou: held, proof: proof))
    }

    /// The established peer, once `admit` has run.
    var peer: EstablishedPeer? {
        if case .established(let peer) = phase { peer } else { nil }
    }

    /// The welcome for `hello`, without its proof; throws for a hello the
    /// server refuses.
    private func welcome(for hello: Message.Hello) throws(HandshakeFailure) -> Message.Welcome {
        let highest = min(hello.versions.upperBound, SyncProtocol.versions.upperBound)
        guard max(hello.versions.lowerBound, SyncProtocol.versions.lowerBound) <= highest else {
            throw .versionMismatch(ours: SyncProtocol.versions, theirs: hello.versions)
        }
        if hello.role == .clip, !allowsClips {
            throw .roleForbidden(
                "the TCP sync port serves main replicas only: a clip fetches its share over HTTPS from the HTTP gateway (sharelog http), "
                    + "or over the server's Unix socket")
        }
        if hello.role == .clip, !hello.directions.isEmpty {
            throw .roleForbidden("a clip fetches shares by record name; it may not pull, push or follow")
        }
        if hello.replica == replica {
            throw .roleForbidden("the client has this store's own replica id: a store cannot sync with itself or its copy")
        }
        return Message.Welcome(version: highest, replica: replica, epoch: epoch, nonce: nonce, proof: nil)
    }
}
