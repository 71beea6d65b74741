import Foundation
import ShareLog
import ShareSync
import TestSupport
import Testing
import TestTraits

/// How a client's session ends when its server misbehaves or stops; each
/// found by the `session` fuzz target.
@Suite(.hangDeadline) struct ClientSessionEndTests {
    static let unknownType = "the peer sent a frame of type 0, which this build does not know (1…17): "
        + "it is not a ShareLog sync peer, or a newer one; check both versions"

    /// A client that sends `hello` to a server on a Unix socket in
    /// `directory`, as `request` says (its endpoint set here), on a thread
    /// of its own: its outcome, and the server's end of the connection,
    /// with the hello read (its replica id: the client store's).
    static func connect(
        _ request: (Endpoint) -> SyncRequest, in directory: TemporaryDirectory
    ) throws -> (client: BackgroundThread<String>, server: any ByteChannel, listener: Listener, replica: ReplicaID) {
        let listener = try Listener(listeningOn: .unix(path: directory.appending("s.sock")))
        var options = ShareStore.Options()
        options.clock = FixedClock(Timestamp(milliseconds: 1_800_000_000_000))
        options.environment.durability = .noSync
        let store = try ShareStore.open(at: directory.appending("store"), creatingIfMissing: true, options: options)
        let request = request(listener.endpoint)
        let client = BackgroundThread { () -> String in
            do {
                let summary = try SyncClient.run(request, store: store)
                return "ended well, found \(summary.found.count), unknown \(summary.unknown.count)"
            } catch {
                return "\(error)"
            }
        }
        let server = try listener.accept(deadline: after(.seconds(30)))
        // The hello: a 9-byte header and 74 bytes of payload.
        let hello = try RawPeer.messages(in: server.read(exactly: 83, deadline: after(.seconds(30))))
        var replica: ReplicaID?
        if hello.count == 1, case .hello(let fields) = hello[0] { replica = fields.replica }
        return (client, server, listener, try #require(replica, "the client sent \(hello), not a hello"))
    }

    /// A client whose server answers `hello` with a frame that does not
    /// decode tells the server why before it closes, as a server tells a
    /// client (docs/SYNC.md, error code 4 `malformedFrame`).
    @Test func aClientGivenAnUndecodableWelcomeTellsTheServer() throws {
        let directory = TemporaryDirectory("sync")
        let (client, server, listener, _) = try Self.connect({ SyncRequest(endpoint: $0) }, in: directory)
        defer { server.close(); listener.close() }
        try server.write([0, 0, 0, 0, 0, 0, 0, 0, 0], deadline: after(.seconds(30)))
        let told = try server.read(exactly: 1 << 16, deadline: after(.seconds(30)))
        #expect(try RawPeer.messages(in: told) == [.error(code: .malformedFrame, message: Self.unknownType)])
        #expect(try client.join("the client gives up") == Self.unknownType)
    }

    /// A keyless server's welcome and acceptance, telling the client it
    /// holds `heldOfYou` of the client's own events.
    static func admit(over server: any ByteChannel, heldOfYou: UInt64) throws {
        let welcome = Message.Welcome(
            version: 2, replica: ReplicaID(uuid: UUID(uuidString: "5c2f8d0e-6a1b-4c3d-8e9f-0a1b2c3d4e5f")!),
            epoch: Epoch(uuid: UUID(uuidString: "7d3e9f1a-2b4c-4d5e-9f0a-1b2c3d4e5f60")!), nonce: HandshakeNonce(bytes: [UInt8](repeating: 3, count: 32))!,
            proof: nil)
        let accepted = Message.accepted(Message.Accepted(heldOfYou: heldOfYou, proof: nil))
        try server.write(FrameEncoder.encode(Message.welcome(welcome).frame) + FrameEncoder.encode(accepted.frame), deadline: after(.seconds(30)))
    }

    /// How a server may end a clip's session before answering its fetch,
    /// and what the clip says of it.
    static let endings: [(message: Message, outcome: String)] = [
        (.error(code: .shuttingDown, message: "the server is stopping"), #"the peer ended the session: "the server is stopping" (shuttingDown)"#),
        (.bye, "the peer sent bye while the client's directions were not done (only a client ends a session); it does not follow the protocol"),
    ]

    /// A clip whose server stops, or says `bye`, before answering its
    /// fetch fails: it does not end well knowing none of its names (for
    /// `clip open`, that would read as a share the server does not hold).
    @Test(arguments: 0..<endings.count) func aClipWhoseServerEndsBeforeAnsweringFails(ending: Int) throws {
        let directory = TemporaryDirectory("sync")
        let name = RecordName(uuid: UUID(uuidString: "1e2a7c4d-58b6-4f0e-9a3c-7d5e1f2b3a4c")!)
        let (client, server, listener, _) = try Self.connect({ endpoint in
            var request = SyncRequest(endpoint: endpoint)
            request.role = .clip
            request.names = [name]
            return request
        }, in: directory)
        defer { server.close(); listener.close() }
        try Self.admit(over: server, heldOfYou: 0)
        let fetch = try server.read(exactly: 9 + 2 + 16, deadline: after(.seconds(30)))
        #expect(try RawPeer.messages(in: fetch) == [.fetch([name])])
        try server.write(FrameEncoder.encode(Self.endings[ending].message.frame), deadline: after(.seconds(30)))
        #expect(try client.join("the clip gives up") == Self.endings[ending].outcome)
    }

    /// A main whose server claims, in `accepted`, to hold more of the
    /// client's own events than it made tells the server why and fails,
    /// before any event is sent, with its replica id kept (before, it took a new id
    /// on the server's word).
    @Test func aMainToldItsServerHoldsEventsItNeverMadeRefusesAndKeepsItsID() throws {
        let directory = TemporaryDirectory("sync")
        let (client, server, listener, replica) = try Self.connect({ SyncRequest(endpoint: $0) }, in: directory)
        defer { server.close(); listener.close() }
        try Self.admit(over: server, heldOfYou: 4)
        let outcome = try client.join("the client refuses")
        let expected = "replica \(replica) made 0 events under its id, and its peer claims to hold 4 of them: refused before any event was sent, and the id kept. "
            + "If that replica's store was restored in place from an older copy together with its high-water file, "
            + "stop writing to it and run 'sharelog renew-identity' on it; "
            + "otherwise the other store is wrong (docs/SYNC.md \"Identity\")"
        #expect(outcome == expected)
        let told = try RawPeer.messages(in: server.read(exactly: 1 << 16, deadline: after(.seconds(30))))
        #expect(told == [.error(code: .unmadeEventsClaimed, message: expected)])
        var options = ShareStore.Options()
        options.environment.readOnly = true
        #expect(try ShareStore.open(at: directory.appending("store"), options: options).replicaID == replica)
    }
}
