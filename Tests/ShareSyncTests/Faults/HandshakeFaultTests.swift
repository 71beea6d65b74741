import ShareLog
import Testing
@testable import ShareSync

/// The handshake's two state machines fed each other's messages by hand, no
/// sockets: who gets in with which key, what each side learns, and every
/// way in that must be refused (docs/SYNC.md "Handshake", "Security model").
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

    static func server(key: SyncKey?, nonce: UInt8 = 0x51, allowsClips: Bool = true) -> ServerHandshake {
        ServerHandshake(
            replica: serverReplica, epoch: serverEpoch, proofKey: key?.derived(for: .handshakeProof), nonce: Self.nonce(nonce),
            allowsClips: allowsClips)
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

    /// Whether the server waits for a proof.
    static func awaitsProof(_ server: ServerHandshake) -> Bool {
        if case .awaitingProof = server.phase { true } else { false }
    }

    @Test func theSameKeyOnBothSidesEstablishesTheSession() throws {
        var client = Self.client(key: Self.key)
        var server = Self.server(key: Self.key)
        let welcome = try #require(try server.receive(client.start))
        // A main client owes its proof before it gets a place.
        #expect(Self.awaitsProof(server))
        #expect(server.admittingRole == nil)
        let send = try client.receive(welcome)
        try #require(send.count == 1)
        #expect(try server.receive(send[0]) == nil)
        #expect(server.admittingRole == .main)
        let accepted = server.admit { replica in replica == Self.clientReplica ? 7 : 0 }
        #expect(try client.receive(accepted) == [])
        #expect(client.peer == EstablishedPeer(
            replica: Self.serverReplica, epoch: Self.serverEpoch, role: .main, directions: .pull, version: 2, heldOfYou: 7))
        #expect(server.peer == EstablishedPeer(
            replica: Self.clientReplica, epoch: Self.clientEpoch, role: .main, directions: .pull, version: 2, heldOfYou: 0))
    }

    @Test func aClientWithAKeyRefusesAServerThatGivesNoProof() throws {
        var client = Self.client(key: Self.key)
        var server = Self.server(key: nil)
        let welcome = try #require(try server.receive(client.start))
        let reason = Self.notAuthenticatedReason { _ = try client.receive(welcome) }
        #expect(reason?.contains("no proof") == true)
        #expect(reason?.contains("--key-file") == true)
    }

    @Test func differentKeysAreRefusedByEachSide() throws {
        var client = Self.client(key: Self.key)
        var server = Self.server(key: Self.otherKey)
        let welcome = try #require(try server.receive(client.start))
        let clientReason = Self.notAuthenticatedReason { _ = try client.receive(welcome) }
        #expect(clientReason?.contains("different keys") == true)

        // The client's proof under its own key, for the very same transcript:
        // a server that holds the client's key, with the other server's nonce.
        var twinClient = Self.client(key: Self.key)
        var twin = Self.server(key: Self.key)
        let twinWelcome = try #require(try twin.receive(twinClient.start))
        let proof = try #require(try twinClient.receive(twinWelcome).first)
        let serverReason = Self.notAuthenticatedReason { _ = try server.receive(proof) }
        #expect(serverReason?.contains("different keys") == true)
        #expect(Self.awaitsProof(server))
    }

    @Test func aServerToldByTheClientThatTheKeysDifferSaysSo() throws {
        var server = Self.server(key: Self.otherKey)
        _ = try server.receive(Self.client(key: Self.key).start)
        // What a client that found the server's proof wrong sends instead of its own.
        let text = "authentication failed: the server's proof does not match this key: the two sides hold different keys"
        #expect(throws: HandshakeFailure.refused(.authenticationFailed, text)) {
            _ = try server.receive(.error(code: .authenticationFailed, message: text))
        }
    }

    @Test func aMainClientWithoutAProofIsRefusedByAKeyedServerAndLearnsNothing() throws {
        var client = Self.client(key: nil)
        var server = Self.server(key: Self.key)
        let welcome = try #require(try server.receive(client.start))
        // The welcome says nothing of what the server holds: its payload
        // is version 2, replica 16, epoch 16, nonce 32, proof length 1 and
        // proof 32 bytes (docs/SYNC.md "Messages").
        guard case .welcome = welcome else { Issue.record("the answer to a hello was \(welcome)"); return }
        #expect(welcome.frame.payload.count == 2 + 16 + 16 + 32 + 1 + 32)
        // The keyless client sees the server's proof and gives up at once,
        // saying why; a pull in place of a proof is refused.
        #expect(Self.notAuthenticatedReason { _ = try client.receive(welcome) }?.contains("must prove it holds the key too") == true)
        let pull = Message.pull(Message.Pull(knownEpoch: nil, after: 0, follow: false, maxBatchBytes: 65536))
        let reason = Self.notAuthenticatedReason { _ = try server.receive(pull) }
        #expect(reason?.contains("must prove it holds the key") == true)
        #expect(Self.awaitsProof(server))
        #expect(server.admittingRole == nil)

        // Nor does a proof of the wrong bytes get in.
        var second = Self.server(key: Self.key)
        _ = try second.receive(client.start)
        let forged = Message.authenticate(proof: HandshakeProof(bytes: Array(repeating: 0, count: 32))!)
        #expect(Self.notAuthenticatedReason { _ = try second.receive(forged) } != nil)
        #expect(second.admittingRole == nil)
    }

    @Test func aClipNeedsNoKeyMayOnlyFetchAndIsToldNothingOfAnyReplica() throws {
        var clip = Self.client(role: .clip, directions: [], key: nil)
        var server = Self.server(key: Self.key)
        let welcome = try #require(try server.receive(clip.start))
        #expect(server.admittingRole == .clip)
        #expect(try clip.receive(welcome) == [])
        // Whatever the store holds of the id the clip named, it is told 0.
        var asked = false
        let accepted = server.admit { _ in
            asked = true
            return 1_000
        }
        #expect(!asked)
        guard case .accepted(let fields) = accepted else { Issue.record("admit gave \(accepted)"); return }
        #expect(fields.heldOfYou == 0)
        #expect(try clip.receive(accepted) == [])
        #expect(clip.peer?.heldOfYou == 0)
        #expect(server.peer == EstablishedPeer(
            replica: Self.clientReplica, epoch: Self.clientEpoch, role: .clip, directions: [], version: 2, heldOfYou: 0))

        for directions: SyncDirections in [.pull, .push, .follow, .both] {
            var keyless = Self.server(key: nil)
            let asking = Self.client(role: .clip, directions: directions, key: nil)
            do {
                _ = try keyless.receive(asking.start)
                Issue.record("a clip asking for \(directions.rawValue) was welcomed")
            } catch HandshakeFailure.roleForbidden(let reason) {
                #expect(reason.contains("clip"))
            } catch {
                Issue.record("a clip asking for \(directions.rawValue) failed with \(error), not roleForbidden")
            }
            #expect(keyless.phase == .awaitingHello)
        }
    }

    @Test func aClipHoldingTheKeyStillCannotActAsAMain() throws {
        // A clip that was given the key proves nothing and gets a clip's
        // session: the role, not the key, decides what it may do.
        var clip = Self.client(role: .clip, directions: [], key: Self.key)
        var server = Self.server(key: Self.key)
        let welcome = try #require(try server.receive(clip.start))
        #expect(try clip.receive(welcome) == [])
        #expect(try clip.receive(server.admit { _ in 5 }) == [])
        #expect(server.peer?.role == .clip)
        #expect(server.peer?.directions == [])
    }

    @Test func theTCPPortRefusesClips() throws {
        var server = Self.server(key: Self.key, allowsClips: false)
        do {
            _ = try server.receive(Self.client(role: .clip, directions: [], key: nil).start)
            Issue.record("a clip was welcomed on the TCP port")
        } catch .roleForbidden(let reason) {
            #expect(reason.contains("HTTPS"))
        } catch {
            Issue.record("a clip on the TCP port failed with \(error), not roleForbidden")
        }
        // A main is welcomed there as anywhere.
        var mains = Self.server(key: Self.key, allowsClips: false)
        #expect(try mains.receive(Self.client(key: Self.key).start) != nil)
    }

    @Test func versionRangesThatDoNotOverlapAreRefusedNamingBoth() throws {
        var server = Self.server(key: nil)
        var hello = Self.client(key: nil).hello
        hello.versions = 3 ... 5
        #expect(throws: HandshakeFailure.versionMismatch(ours: 2 ... 2, theirs: 3 ... 5)) { _ = try server.receive(.hello(hello)) }
        // A client of protocol 1 is told which version this side speaks.
        var old = Self.server(key: nil)
        hello.versions = 1 ... 1
        #expect(throws: HandshakeFailure.versionMismatch(ours: 2 ... 2, theirs: 1 ... 1)) { _ = try old.receive(.hello(hello)) }
        let text = "\(HandshakeFailure.versionMismatch(ours: 2 ... 2, theirs: 1 ... 1))"
        #expect(text.contains("version 2,") && text.contains("the peer version 1"))

        // The client checks the server's choice too.
        var client = Self.client(key: nil)
        let welcome = Message.welcome(Message.Welcome(version: 3, replica: Self.serverReplica, epoch: Self.serverEpoch, nonce: Self.nonce(0x51), proof: nil))
        #expect(throws: HandshakeFailure.versionMismatch(ours: 2 ... 2, theirs: 3 ... 3)) { _ = try client.receive(welcome) }
    }

    @Test func aClientClaimingTheServersOwnReplicaIdIsRefused() throws {
        var server = Self.server(key: Self.key)
        let impostor = Self.client(key: Self.key, replica: Self.serverReplica)
        do {
            _ = try server.receive(impostor.start)
            Issue.record("a client with the server's own replica id was welcomed")
        } catch .roleForbidden(let reason) {
            #expect(reason.contains("own replica id"))
        } catch {
            Issue.record("a client with the server's own replica id failed with \(error), not roleForbidden")
        }
        #expect(server.phase == .awaitingHello)
    }

    @Test func aProofReplayedIntoAnotherSessionFails() throws {
        // A session an eavesdropper recorded: the client's hello and proof.
        var client = Self.client(key: Self.key)
        var recorded = Self.server(key: Self.key, nonce: 0x51)
        let recordedWelcome = try #require(try recorded.receive(client.start))
        let proof = try #require(try client.receive(recordedWelcome).first)
        _ = try recorded.receive(proof)

        // Replayed word for word to a new session, whose server nonce differs.
        var replayed = Self.server(key: Self.key, nonce: 0x52)
        _ = try replayed.receive(client.start)
        #expect(Self.notAuthenticatedReason { _ = try replayed.receive(proof) } != nil)
        #expect(Self.awaitsProof(replayed))

        // The server's proof of one session does not pass with another client nonce.
        var laterClient = Self.client(key: Self.key, nonce: 0xC2)
        #expect(Self.notAuthenticatedReason { _ = try laterClient.receive(recordedWelcome) } != nil)

        // Nor does the server's own proof, reflected back as the client's.
        var reflected = Self.server(key: Self.key, nonce: 0x53)
        let reflectedWelcome = try #require(try reflected.receive(client.start))
        guard case .welcome(let fields) = reflectedWelcome, let serverProof = fields.proof else {
            Issue.record("a keyed server's welcome carries no proof")
            return
        }
        #expect(Self.notAuthenticatedReason { _ = try reflected.receive(.authenticate(proof: serverProof)) } != nil)
    }

    @Test func theProofsCoverTheVersionsTheEpochsAndHeldOfYou() throws {
        // Someone on the path narrows the client's versions on the way in:
        // the server's proof no longer matches what the client sent.
        var client = Self.client(key: Self.key)
        var server = Self.server(key: Self.key)
        guard case .hello(var hello) = client.start else { Issue.record("the client's first message is not a hello"); return }
        hello.versions = 1 ... 2
        let welcome = try #require(try server.receive(.hello(hello)))
        #expect(Self.notAuthenticatedReason { _ = try client.receive(welcome) }?.contains("different keys") == true)

        // The server's epoch changed on the way out.
        client = Self.client(key: Self.key)
        server = Self.server(key: Self.key)
        guard case .welcome(var fields) = try #require(try server.receive(client.start)) else { Issue.record("no welcome"); return }
        fields.epoch = Self.clientEpoch
        #expect(Self.notAuthenticatedReason { _ = try client.receive(.welcome(fields)) } != nil)

        // heldOfYou changed on the way out: the acceptance's proof fails.
        client = Self.client(key: Self.key)
        server = Self.server(key: Self.key)
        let proof = try client.receive(try #require(try server.receive(client.start)))
        _ = try server.receive(try #require(proof.first))
        guard case .accepted(var accepted) = server.admit(heldOfYou: { _ in 3 }) else { Issue.record("no acceptance"); return }
        accepted.heldOfYou = 1_000_000
        #expect(Self.notAuthenticatedReason { _ = try client.receive(.accepted(accepted)) } != nil)
        #expect(client.peer == nil)
    }

    @Test func theTLSAndProofKeysAreHKDFOfTheSharedKeyAndDiffer() {
        // RFC 5869, test case 3 (SHA-256, no salt, no info): the first 32
        // bytes of its OKM.
        var okm = [UInt8](repeating: 0, count: 32)
        [UInt8](repeating: 0x0b, count: 22).withUnsafeBytes { key in
            okm.withUnsafeMutableBytes { OpenSSLCrypto.hkdfSHA256(key: key, info: [], into: $0) }
        }
        #expect(okm == hex("8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d"))
        func bytes(_ key: SyncKey) -> [UInt8] { key.secret.withUnsafeBytes { Array($0) } }
        let tls = bytes(Self.key.derived(for: .tlsPreSharedKey))
        let proof = bytes(Self.key.derived(for: .handshakeProof))
        #expect(tls != proof && tls != bytes(Self.key) && proof != bytes(Self.key))
    }
}
