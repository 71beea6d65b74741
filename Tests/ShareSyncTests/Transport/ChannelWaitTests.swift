import Glibc
import Testing
import TestSupport
import ShareSync
import TestTraits

/// Every wait on a channel ends at its deadline or when the wake-up
/// descriptor fires, and a vanished peer is an error, never a signal.
@Suite(.hangDeadline) struct ChannelWaitTests {
    /// A connected pair over a Unix socket in `directory`, all three in one
    /// isolation region: none of them can be handed to another thread.
    private func pair(in directory: TemporaryDirectory) throws -> (client: SocketChannel, server: SocketChannel, listener: Listener) {
        let listener = try listen(in: directory)
        let client = try SocketChannel.connect(to: listener.endpoint, deadline: after(.seconds(60)))
        let server = try listener.accept(deadline: after(.seconds(60)))
        return (client, server, listener)
    }

    /// A listener on a Unix socket in `directory`. A client connected to it
    /// (`SocketChannel.connect`) and the server's end (`accept`) are each
    /// made apart from it, so that either can be handed to a thread.
    private func listen(in directory: TemporaryDirectory) throws -> Listener {
        try Listener(listeningOn: .unix(path: directory.appending("pair.sock")))
    }

    @Test func aReadFromASilentPeerEndsAtItsDeadline() throws {
        let directory = TemporaryDirectory("sync")
        let listener = try listen(in: directory)
        let client = try SocketChannel.connect(to: listener.endpoint, deadline: after(.seconds(60)))
        let server = try listener.accept(deadline: after(.seconds(60)))
        defer { server.close(); listener.close() }
        // On a thread of its own, so that a read that ignored its deadline
        // fails this test at the join's deadline instead of hanging it.
        let reader = BackgroundThread {
            client.adoptOnCurrentThread()
            defer { client.close() }
            return try client.read(exactly: 1, deadline: after(.milliseconds(100)))
        }
        #expect(throws: TransportError.timedOut(waitingFor: "data from \(listener.endpoint)")) {
            try reader.join("the read gave up", timeout: .seconds(30))
        }
    }

    @Test func aWriteToAPeerThatNeverReadsEndsAtItsDeadline() throws {
        let directory = TemporaryDirectory("sync")
        let listener = try listen(in: directory)
        let client = try SocketChannel.connect(to: listener.endpoint, deadline: after(.seconds(60)))
        let server = try listener.accept(deadline: after(.seconds(60)))
        defer { server.close(); listener.close() }
        // Far more than the socket buffers hold.
        let bytes = [UInt8](repeating: 7, count: 32 << 20)
        let writer = BackgroundThread {
            client.adoptOnCurrentThread()
            defer { client.close() }
            try client.write(bytes, deadline: after(.milliseconds(200)))
        }
        #expect(throws: TransportError.timedOut(waitingFor: "\(listener.endpoint) to take the bytes written to it")) {
            try writer.join("the write gave up", timeout: .seconds(30))
        }
    }

    @Test func theWakeDescriptorWakesAWaitingReader() throws {
        let directory = TemporaryDirectory("sync")
        let listener = try listen(in: directory)
        let client = try SocketChannel.connect(to: listener.endpoint, deadline: after(.seconds(60)))
        let server = try listener.accept(deadline: after(.seconds(60)))
        defer { server.close(); listener.close() }
        var wake: [Int32] = [-1, -1]
        #expect(pipe(&wake) == 0)
        defer { wake.forEach { close($0) } }
        let wakeRead = wake[0]
        let waiter = BackgroundThread {
            client.adoptOnCurrentThread()
            defer { client.close() }
            return try client.waitReadable(orWake: wakeRead, deadline: after(.seconds(60)))
        }
        #expect(write(wake[1], [1], 1) == 1)
        #expect(try waiter.join("the wake-up descriptor ended the wait") == .woken)
    }

    @Test func bytesFromThePeerEndAWaitAsReadable() throws {
        let directory = TemporaryDirectory("sync")
        let (client, server, listener) = try pair(in: directory)
        defer { [client, server].forEach { $0.close() }; listener.close() }
        var wake: [Int32] = [-1, -1]
        #expect(pipe(&wake) == 0)
        defer { wake.forEach { close($0) } }
        #expect(try client.waitReadable(orWake: wake[0], deadline: after(.milliseconds(50))) == .timedOut)
        try server.write([1], deadline: after(.seconds(60)))
        #expect(try client.waitReadable(orWake: wake[0], deadline: after(.seconds(60))) == .readable)
    }

    @Test func writingToAClosedPeerIsAnErrorAndNotASignal() throws {
        let directory = TemporaryDirectory("sync")
        let (client, server, listener) = try pair(in: directory)
        defer { server.close(); listener.close() }
        client.close()
        // The first write may still be taken by the kernel; a later one
        // meets the closed socket (EPIPE). With SIGPIPE raised instead, the
        // test process would die here.
        #expect(throws: TransportError.peerClosed(peer: "\(listener.endpoint) (pid \(getpid()), uid \(getuid()))")) {
            for _ in 0..<100 { try server.write([1, 2, 3], deadline: after(.seconds(60))) }
        }
    }

    @Test func aClosedChannelRefusesWork() throws {
        let directory = TemporaryDirectory("sync")
        let (client, server, listener) = try pair(in: directory)
        defer { server.close(); listener.close() }
        client.close()
        client.close()
        #expect(throws: TransportError.channelClosed) { try client.write([1], deadline: nil) }
        #expect(throws: TransportError.channelClosed) { try client.read(exactly: 1, deadline: nil) }
    }

    @Test func thePeerClosingReadsAsTheEndOfTheStream() throws {
        let directory = TemporaryDirectory("sync")
        let (client, server, listener) = try pair(in: directory)
        defer { client.close(); listener.close() }
        try server.write([9, 8], deadline: after(.seconds(60)))
        server.close()
        #expect(try client.read(exactly: 3, deadline: after(.seconds(60))) == [9, 8])
    }
}
