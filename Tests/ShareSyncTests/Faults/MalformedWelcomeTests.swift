import ShareLog
import ShareSync
import TestSupport
import Testing

/// A client whose server answers `hello` with a frame that does not decode
/// tells the server why before it closes, as a server tells a client
/// (docs/SYNC.md, error code 4 `malformedFrame`). The `session` fuzz target
/// found the client closing without a word.
@Suite(.timeLimit(.minutes(1))) struct MalformedWelcomeTests {
    static let unknownType = "the peer sent a frame of type 0, which this build does not know (1…16): "
        + "it is not a ShareLog sync peer, or a newer one; check both versions"

    @Test func aClientGivenAnUndecodableWelcomeTellsTheServer() throws {
        let directory = TemporaryDirectory("sync")
        let listener = try Listener(listeningOn: .unix(path: directory.appending("s.sock")))
        defer { listener.close() }
        var options = ShareStore.Options()
        options.clock = FixedClock(Timestamp(milliseconds: 1_800_000_000_000))
        options.environment.durability = .noSync
        let store = try ShareStore.open(at: directory.appending("store"), creatingIfMissing: true, options: options)
        let endpoint = listener.endpoint
        let client = BackgroundThread { () -> String in
            do {
                _ = try SyncClient.run(SyncRequest(endpoint: endpoint), store: store)
                return "ended well"
            } catch {
                return "\(error)"
            }
        }
        let server = try listener.accept(deadline: after(.seconds(30)))
        defer { server.close() }
        // The hello: a 9-byte header and 74 bytes of payload.
        #expect(try RawPeer.messages(in: server.read(exactly: 83, deadline: after(.seconds(30)))).map(\.type) == [.hello])
        try server.write([0, 0, 0, 0, 0, 0, 0, 0, 0], deadline: after(.seconds(30)))
        let told = try server.read(exactly: 1 << 16, deadline: after(.seconds(30)))
        #expect(try RawPeer.messages(in: told) == [.error(code: .malformedFrame, message: Self.unknownType)])
        #expect(try client.join("the client gives up") == Self.unknownType)
    }
}
