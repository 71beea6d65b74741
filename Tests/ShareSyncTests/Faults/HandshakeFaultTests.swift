import ShareLog
import Testing
@testable import ShareSync

/// The handshake's two state machines fed each other's messages by hand, no
/// sockets: who gets in with which key, and every way in that must be
/// refused (docs/SYNC.md "Handshake", "Security").
@Suite struct HandshakeFaultTests {
    static let clientReplica = ReplicaID("0000000c-0000-4000-8000-000000000001")!
    static let clientEpoch = Epoch("0000000c-0000-4000-8000-0000000000e1")!
    static let serverReplica = ReplicaID("00000005-0000-4000-8000-000000000001")!
    static let serverEpoch = Epoch("00000005-0000-4000-8000-0000000000e1")!
    static let key = SyncKey(bytes: Array(repeating: 0x11, count: 32))
    static let otherKey = SyncKey(bytes: Array(repeating: 0x22, count: 32))

    static func nonce(_ byte: UInt8) -> HandshakeNonce { HandshakeNonce(bytes: Array(repeating: byte, count: 32))! }

    static func client(
        role: SyncRole = .main, directions: SyncDirections = .pull, key: SyncKey?, nonce: UInt8 = 0xC1, replica: ReplicaID = clientReplica
    ) -> ClientHandshake {
        ClientHandshake(role: role, directions: directions, replica: replica, epoch: clientEpoch, key: key, nonce: Self.nonce(nonce))
    }

    static func server(key: SyncKey?, nonce: UInt8 = 0x51) -> ServerHandshake {
        ServerHandshake(replica: serverReplica, epoch: serverEpoch, key: key, nonce: Self.nonce(nonce))
    }

    /// The server's answer to `hello`, holding 7 of the client's events.
    static func welcome(_ server: inout ServerHandshake, _ hello: Message) throws -> (welcome: Message, peer: EstablishedPeer?) {
        try server.receive(hello: hello) { _ in 7 }
    }

    /// The reason of a `notAuthenticated` failure, nil for anything else.
    static func notAuthenticatedReason(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch HandshakeFailure.notAuthenticated(let reason) {
            return reason
        } catch {
            return nil
        }
    }

    @Test func theSameKeyOnBothSidesEstablishesTheSession() throws {
        let client = Self.client(key: Self.key)
        var server = Self.server(key: Self.key)
        let (welcome, early) = try Self.welcome(&server, client.start)
        // A main client owes its proof before the session exists.
        #expect(early == nil)
        #expect(server.phase == .awaitingProof)
        let (serverPeer, send) = try client.receive(welcome)
        #expect(serverPeer == EstablishedPeer(
            replica: Self.serverReplica, epoch: Self.serverEpoch, role: .main, directions: .pull, version: 1, heldOfYou: 7))
        try #require(send.count == 1)
        let clientPeer = try server.receive(proof: send[0])
        #expect(clientPeer == EstablishedPeer(
            replica: Self.clientReplica, epoch: Self.clientEpoch, role: .main, directions: .pull, version: 1, heldOfYou: 0))
        #expect(server.phase == .established)
    }

    @Test func aClientWithAKeyRefusesAServerThatGivesNoProof() throws {
        let client = Self.client(key: Self.key)
        var server = Self.server(key: nil)
        let (welcome, _) = try Self.welcome(&server, client.start)
        let reason = Self.notAuthenticatedReason { _ = try client.receive(welcome) }
        #expect(reason?.contains("no proof") == true)
        #expect(reason?.contains("--key-file") == true)
    }

    @Test func differentKeysAreRefusedByEachSide() throws {
        let client = Self.client(key: Self.key)
        var server = Self.server(key: Self.otherKey)
        let (welcome, _) = try Self.welcome(&server, client.start)
        let clientReason = Self.notAuthenticatedReason { _ = try client.receive(welcome) }
        #expect(clientReason?.contains("different keys") == true)

        // The client's proof under its own key, for the very same transcript:
        // a server that holds the client's key, with the other server's nonce.
        var twin = Self.server(key: Self.key)
        let (twinWelcome, _) = try Self.welcome(&twin, client.start)
        let proof = try #require(try client.receive(twinWelcome).send.first)
        let serverReason = Self.notAuthenticatedReason { _ = try server.receive(proof: proof) }
        #expect(serverReason?.contains("different keys") == true)
        #expect(server.phase == .awaitingProof)
    }

    @Test func aServerToldByTheClientThatTheKeysDifferSaysSo() throws {
        var server = Self.server(key: Self.otherKey)
        _ = try Self.welcome(&server, Self.client(key: Self.key).start)
        // What a client that found the server's proof wrong sends instead of its own.
        let text = "authentication failed: the server's proof does not match this key: the two sides hold different keys"
        #expect(throws: HandshakeFailure.refused(.authenticationFailed, text)) {
            _ = try server.receive(proof: .error(code: .authenticationFailed, message: text))
        }
    }

    @Test func aMainClientWithoutAProofIsRefusedByAKeyedServer() throws {
        let client = Self.client(key: nil)
        var server = Self.server(key: Self.key)
        let (welcome, early) = try Self.welcome(&server, client.start)
        #expect(early == nil)
        // The keyless client goes on as if established, and asks for events.
        let (_, send) = try client.receive(welcome)
        #expect(send == [])
        let pull = Message.pull(Message.Pull(knownEpoch: nil, after: 0, follow: false, maxBatchBytes: 65536))
        let reason = Self.notAuthenticatedReason { _ = try server.receive(proof: pull) }
        #expect(reason?.contains("must prove it holds the key") == true)
        #expect(server.phase == .awaitingProof)

        // Nor does a proof of the wrong bytes get in.
        var second = Self.server(key: Self.key)
        _ = try Self.welcome(&second, client.start)
        let forged = Message.authenticate(proof: HandshakeProof(bytes: Array(repeating: 0, count: 32))!)
        #expect(Self.notAuthenticatedReason { _ = try second.receive(proof: forged) } != nil)
    }

    @Test func aClipNeedsNoKeyAndMayOnlyFetch() throws {
        let clip = Self.client(role: .clip, directions: [], key: nil)
        var server = Self.server(key: Self.key)
        let (welcome, early) = try Self.welcome(&server, clip.start)
        #expect(early == EstablishedPeer(
            replica: Self.clientReplica, epoch: Self.clientEpoch, role: .clip, directions: [], version: 1, heldOfYou: 0))
        #expect(server.phase == .established)
        #expect(try clip.receive(welcome).send == [])

        for directions: SyncDirections in [.pull, .push, .follow, .both] {
            var keyless = Self.server(key: nil)
            let asking = Self.client(role: .clip, directions: directions, key: nil)
            do {
                _ = try Self.welcome(&keyless, asking.start)
                Issue.record("a clip asking for \(directions.rawValue) was welcomed")
            } catch HandshakeFailure.roleForbidden(let reason) {
                #expect(reason.contains("clip"))
            } catch {
                Issue.record("a clip asking for \(directions.rawValue) failed with \(error), not roleForbidden")
            }
            #expect(keyless.phase == .awaitingHello)
        }
    }

    @Test func versionRangesThatDoNotOverlapAreRefusedNamingBoth() throws {
        var server = Self.server(key: nil)
        var hello = Self.client(key: nil).hello
        hello.versions = 2 ... 5
        #expect(throws: HandshakeFailure.versionMismatch(ours: 1 ... 1, theirs: 2 ... 5)) {
            _ = try Self.welcome(&server, .hello(hello))
        }
        let text = "\(HandshakeFailure.versionMismatch(ours: 1 ... 1, theirs: 2 ... 5))"
        #expect(text.contains("version 1,") && text.contains("versions 2–5"))

        // The client checks the server's choice too.
        let client = Self.client(key: nil)
        let welcome = Message.welcome(Message.Welcome(
            version: 3, replica: Self.serverReplica, epoch: Self.serverEpoch, nonce: Self.nonce(0x51), heldOfYou: 0, proof: nil))
        #expect(throws: HandshakeFailure.versionMismatch(ours: 1 ... 1, theirs: 3 ... 3)) { _ = try client.receive(welcome) }
    }

    @Test func aClientClaimingTheServersOwnReplicaIdIsRefused() throws {
        var server = Self.server(key: Self.key)
        let impostor = Self.client(key: Self.key, replica: Self.serverReplica)
        do {
            _ = try Self.welcome(&server, impostor.start)
            Issue.record("a client with the server's own replica id was welcomed")
        } catch HandshakeFailure.roleForbidden(let reason) {
            #expect(reason.contains("own replica id"))
        }
        #expect(server.phase == .awaitingHello)
    }

    @Test func aProofReplayedIntoAnotherSessionFails() throws {
        // A session an eavesdropper recorded: the client's hello and proof.
        let client = Self.client(key: Self.key)
        var recorded = Self.server(key: Self.key, nonce: 0x51)
        let (recordedWelcome, _) = try Self.welcome(&recorded, client.start)
        let proof = try #require(try client.receive(recordedWelcome).send.first)
        _ = try recorded.receive(proof: proof)

        // Replayed word for word to a new session, whose server nonce differs.
        var replayed = Self.server(key: Self.key, nonce: 0x52)
        _ = try Self.welcome(&replayed, client.start)
        #expect(Self.notAuthenticatedReason { _ = try replayed.receive(proof: proof) } != nil)
        #expect(replayed.phase == .awaitingProof)

        // The server's proof of one session does not pass with another client nonce.
        let laterClient = Self.client(key: Self.key, nonce: 0xC2)
        #expect(Self.notAuthenticatedReason { _ = try laterClient.receive(recordedWelcome) } != nil)

        // Nor does the server's own proof, reflected back as the client's.
        var reflected = Self.server(key: Self.key, nonce: 0x53)
        let (reflectedWelcome, _) = try Self.welcome(&reflected, client.start)
        guard case .welcome(let fields) = reflectedWelcome, let serverProof = fields.proof else {
            Issue.record("a keyed server's welcome carries no proof")
            return
        }
        #expect(Self.notAuthenticatedReason { _ = try reflected.receive(proof: .authenticate(proof: serverProof)) } != nil)
    }
}
