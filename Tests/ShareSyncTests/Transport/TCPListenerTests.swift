import Testing
import TestSupport
import ShareSync
import TestTraits

/// TCP listeners bind loopback unless told otherwise, take a free port for
/// port 0, and a client learns plainly when nothing listens.
@Suite(.hangDeadline) struct TCPListenerTests {
    @Test func portZeroTakesAFreePortAndTheListenerReportsIt() throws {
        let listener = try Listener(listeningOn: Endpoint(parsing: "tcp:0"))
        defer { listener.close() }
        guard case .tcp(let host, let port) = listener.endpoint else {
            Issue.record("a tcp listener reports \(listener.endpoint)")
            return
        }
        #expect(host == "127.0.0.1")
        #expect(port != 0)
        // A client that knows only the reported endpoint reaches this listener.
        let client = try SocketChannel.connect(to: .tcp(host: "127.0.0.1", port: port), deadline: after(.seconds(60)))
        defer { client.close() }
        let accepted = try listener.accept(deadline: after(.seconds(60)))
        defer { accepted.close() }
        try client.write(Array("over tcp".utf8), deadline: after(.seconds(60)))
        #expect(try accepted.read(exactly: 8, deadline: after(.seconds(60))) == Array("over tcp".utf8))
    }

    @Test func connectingWhereNothingListensIsRefused() throws {
        let listener = try Listener(listeningOn: .tcp(host: "127.0.0.1", port: 0))
        let endpoint = listener.endpoint
        listener.close()
        #expect(throws: TransportError.connectionRefused(endpoint)) {
            try SocketChannel.connect(to: endpoint, deadline: after(.seconds(60)))
        }
    }

    @Test func aSecondListenerOnTheSamePortIsRefused() throws {
        let listener = try Listener(listeningOn: .tcp(host: "127.0.0.1", port: 0))
        defer { listener.close() }
        #expect(throws: TransportError.addressInUse(listener.endpoint)) { try Listener(listeningOn: listener.endpoint) }
    }

    @Test func stdioNeitherListensNorConnects() {
        #expect(throws: TransportError.stdioIsNotASocket) { try Listener(listeningOn: .stdio) }
        #expect(throws: TransportError.stdioIsNotASocket) { try SocketChannel.connect(to: .stdio, deadline: nil) }
    }
}
