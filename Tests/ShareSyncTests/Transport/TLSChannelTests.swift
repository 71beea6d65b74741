import Glibc
import Testing
import TestSupport
import ShareSync
import TestTraits

/// TCP sync runs over TLS 1.3 with the shared key: the same key on both
/// sides talks, anything else fails on each side that sees it, with the
/// cause in plain words.
@Suite(.hangDeadline) struct TLSChannelTests {
    /// What a server thread saw: the bytes it echoed, or its error. The
    /// thread takes `listener`, accepts one connection and closes it.
    private func serve(_ listener: sending Listener, key: SyncKey) -> BackgroundThread<Int> {
        BackgroundThread {
            listener.adoptOnCurrentThread()
            defer { listener.close() }
            let socket = try listener.accept(deadline: after(.seconds(60)))
            let channel = try TLSChannel.server(over: socket, key: key, deadline: after(.seconds(60)))
            defer { channel.close() }
            return try channel.echoUntilClosed(deadline: after(.seconds(60)))
        }
    }

    @Test func withTheSameKeyBytesGoBothWays() throws {
        let key = SyncKey.generate()
        let listener = try Listener(listeningOn: .tcp(host: "127.0.0.1", port: 0))
        let endpoint = listener.endpoint
        let server = serve(listener, key: key)
        let socket = try SocketChannel.connect(to: endpoint, deadline: after(.seconds(60)))
        let client = try TLSChannel.client(over: socket, key: key, deadline: after(.seconds(60)))
        var random = SeededGenerator(seed: 13)
        var sent = 0
        for size in [1, 100, 16_384, 16_385, 100_000, 300_000] {
            let bytes = (0..<size).map { _ in UInt8.random(in: 0...255, using: &random) }
            try client.write(bytes, deadline: after(.seconds(60)))
            #expect(try client.read(exactly: size, deadline: after(.seconds(60))) == bytes)
            sent += size
        }
        client.close()
        #expect(try server.join("the TLS echo server saw the end of the stream") == sent)
    }

    @Test func withDifferentKeysBothSidesFailForThatReason() throws {
        let listener = try Listener(listeningOn: .tcp(host: "127.0.0.1", port: 0))
        let endpoint = listener.endpoint
        let server = serve(listener, key: SyncKey.generate())
        let socket = try SocketChannel.connect(to: endpoint, deadline: after(.seconds(60)))
        let clientError = #expect(throws: TransportError.self) {
            try TLSChannel.client(over: socket, key: SyncKey.generate(), deadline: after(.seconds(60)))
        }
        let serverError = #expect(throws: TransportError.self) { try server.join("the server's handshake ended") }
        #expect(isKeyMismatch(clientError), "client: \(String(describing: clientError))")
        #expect(isKeyMismatch(serverError), "server: \(String(describing: serverError))")
        #expect(clientError?.description.hasPrefix("TLS handshake failed: the peer does not hold this key") == true)
    }

    @Test func plainTextSentToATLSServerIsRefusedAsNotTLS() throws {
        let listener = try Listener(listeningOn: .tcp(host: "127.0.0.1", port: 0))
        let endpoint = listener.endpoint
        let server = serve(listener, key: SyncKey.generate())
        let client = try SocketChannel.connect(to: endpoint, deadline: after(.seconds(60)))
        defer { client.close() }
        try client.write(Array("SLSY hello, plain sync here\n".utf8), deadline: after(.seconds(60)))
        let serverError = #expect(throws: TransportError.self) { try server.join("the server's handshake ended") }
        #expect(isNotTLS(serverError), "server: \(String(describing: serverError))")
    }

    @Test func aTLSClientAtAPlainServerFailsAsNotTLS() throws {
        let listener = try Listener(listeningOn: .tcp(host: "127.0.0.1", port: 0))
        let endpoint = listener.endpoint
        // A plain server that echoes what it gets: the client's hello comes back.
        let server = BackgroundThread {
            listener.adoptOnCurrentThread()
            defer { listener.close() }
            let channel = try listener.accept(deadline: after(.seconds(60)))
            defer { channel.close() }
            return try channel.echoUntilClosed(deadline: after(.seconds(60)))
        }
        let socket = try SocketChannel.connect(to: endpoint, deadline: after(.seconds(60)))
        let clientError = #expect(throws: TransportError.self) {
            try TLSChannel.client(over: socket, key: SyncKey.generate(), deadline: after(.seconds(60)))
        }
        #expect(isNotTLS(clientError), "client: \(String(describing: clientError))")
        _ = try? server.join("the plain server saw the client leave")
    }

    @Test func aHandshakeWithASilentServerEndsAtItsDeadline() throws {
        let listener = try Listener(listeningOn: .tcp(host: "127.0.0.1", port: 0))
        defer { listener.close() }
        let socket = try SocketChannel.connect(to: listener.endpoint, deadline: after(.seconds(60)))
        let silent = try listener.accept(deadline: after(.seconds(60)))
        defer { silent.close() }
        let client = BackgroundThread {
            socket.adoptOnCurrentThread()
            let channel = try TLSChannel.client(over: socket, key: SyncKey.generate(), deadline: after(.milliseconds(200)))
            channel.close()
        }
        #expect(throws: TransportError.timedOut(waitingFor: "the TLS handshake with \(listener.endpoint)")) {
            try client.join("the handshake gave up", timeout: .seconds(30))
        }
    }

    @Test func decryptedBytesNotYetReadCountAsReadableAndTheWakeDescriptorStillWakes() throws {
        let key = SyncKey.generate()
        let listener = try Listener(listeningOn: .tcp(host: "127.0.0.1", port: 0))
        let endpoint = listener.endpoint
        let server = BackgroundThread {
            listener.adoptOnCurrentThread()
            defer { listener.close() }
            let socket = try listener.accept(deadline: after(.seconds(60)))
            let channel = try TLSChannel.server(over: socket, key: key, deadline: after(.seconds(60)))
            defer { channel.close() }
            try channel.write(Array(0..<100), deadline: after(.seconds(60)))
            return try channel.read(exactly: 1, deadline: after(.seconds(60))).count
        }
        let socket = try SocketChannel.connect(to: endpoint, deadline: after(.seconds(60)))
        let client = try TLSChannel.client(over: socket, key: key, deadline: after(.seconds(60)))
        defer { client.close() }
        var wake: [Int32] = [-1, -1]
        #expect(pipe(&wake) == 0)
        defer { wake.forEach { close($0) } }

        #expect(try client.read(exactly: 10, deadline: after(.seconds(60))) == Array(0..<10))
        // The other 90 bytes came in the same record: OpenSSL holds them
        // decrypted, and the socket has nothing more.
        #expect(try client.waitReadable(orWake: wake[0], deadline: .now) == .readable)
        #expect(try client.read(exactly: 90, deadline: after(.seconds(60))) == Array(10..<100))
        #expect(try client.waitReadable(orWake: wake[0], deadline: after(.milliseconds(50))) == .timedOut)
        #expect(write(wake[1], [1], 1) == 1)
        #expect(try client.waitReadable(orWake: wake[0], deadline: after(.seconds(60))) == .woken)

        try client.write([1], deadline: after(.seconds(60)))
        #expect(try server.join("the server read the client's byte") == 1)
    }

    @Test func theServerClosingReadsAsTheEndOfTheStream() throws {
        let key = SyncKey.generate()
        let listener = try Listener(listeningOn: .tcp(host: "127.0.0.1", port: 0))
        let endpoint = listener.endpoint
        let server = BackgroundThread {
            listener.adoptOnCurrentThread()
            defer { listener.close() }
            let socket = try listener.accept(deadline: after(.seconds(60)))
            let channel = try TLSChannel.server(over: socket, key: key, deadline: after(.seconds(60)))
            try channel.write(Array("bye".utf8), deadline: after(.seconds(60)))
            channel.close()
            return 0
        }
        let socket = try SocketChannel.connect(to: endpoint, deadline: after(.seconds(60)))
        let client = try TLSChannel.client(over: socket, key: key, deadline: after(.seconds(60)))
        defer { client.close() }
        #expect(try client.read(exactly: 10, deadline: after(.seconds(60))) == Array("bye".utf8))
        _ = try server.join("the server closed")
    }

    private func isKeyMismatch(_ error: TransportError?) -> Bool {
        if case .tlsKeyMismatch = error { true } else { false }
    }

    private func isNotTLS(_ error: TransportError?) -> Bool {
        if case .tlsNotSpoken = error { true } else { false }
    }
}
