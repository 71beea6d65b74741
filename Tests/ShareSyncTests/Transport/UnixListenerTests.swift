import Foundation
import Glibc
import Testing
import TestSupport
import ShareSync
import TestTraits

/// A `unix:` endpoint is a socket file only its owner may use, which a
/// listener creates, protects and removes.
@Suite(.hangDeadline, .ownThread) struct UnixListenerTests {
    @Test func theSocketFileIsASocketOnlyItsOwnerMayUse() throws {
        let directory = TemporaryDirectory("sync")
        let path = directory.appending("s.sock")
        let listener = try Listener(listeningOn: .unix(path: path))
        defer { listener.close() }
        var status = stat()
        #expect(lstat(path, &status) == 0)
        #expect(status.st_mode & S_IFMT == S_IFSOCK)
        #expect(status.st_mode & 0o777 == 0o600)
    }

    @Test func aMebibyteSentInPiecesComesBackUnchanged() throws {
        let directory = TemporaryDirectory("sync")
        let endpoint = Endpoint.unix(path: directory.appending("echo.sock"))
        let listener = try Listener(listeningOn: endpoint)
        let server = BackgroundThread {
            listener.adoptOnCurrentThread()
            defer { listener.close() }
            let channel = try listener.accept(deadline: after(.seconds(60)))
            defer { channel.close() }
            return try channel.echoUntilClosed(deadline: after(.seconds(60)))
        }
        let client = try SocketChannel.connect(to: endpoint, deadline: after(.seconds(60)))
        var random = SeededGenerator(seed: 12)
        var sent = 0
        while sent < 1 << 20 {
            let size = min(Int.random(in: 1...65_536, using: &random), (1 << 20) - sent)
            let piece = (0..<size).map { _ in UInt8.random(in: 0...255, using: &random) }
            try client.write(piece, deadline: after(.seconds(60)))
            #expect(try client.read(exactly: piece.count, deadline: after(.seconds(60))) == piece)
            sent += piece.count
        }
        client.close()
        #expect(try server.join("the echo server saw the end of the stream") == 1 << 20)
    }

    @Test func aSecondListenerOnALiveSocketIsRefusedAndTheFirstKeepsServing() throws {
        let directory = TemporaryDirectory("sync")
        let endpoint = Endpoint.unix(path: directory.appending("live.sock"))
        let first = try Listener(listeningOn: endpoint)
        defer { first.close() }
        #expect(throws: TransportError.addressInUse(endpoint)) { try Listener(listeningOn: endpoint) }

        // The second listener found the socket live by connecting to it:
        // the first accepts that probe as a connection that ends at once.
        let probe = try first.accept(deadline: after(.seconds(60)))
        #expect(try probe.read(exactly: 1, deadline: after(.seconds(60))) == [])
        probe.close()

        let client = try SocketChannel.connect(to: endpoint, deadline: after(.seconds(60)))
        defer { client.close() }
        let accepted = try first.accept(deadline: after(.seconds(60)))
        defer { accepted.close() }
        try client.write(Array("still here".utf8), deadline: after(.seconds(60)))
        #expect(try accepted.read(exactly: 10, deadline: after(.seconds(60))) == Array("still here".utf8))
    }

    @Test func aStaleSocketFileIsReplaced() throws {
        let directory = TemporaryDirectory("sync")
        let path = directory.appending("stale.sock")
        try makeStaleSocket(at: path)
        let endpoint = Endpoint.unix(path: path)
        #expect(throws: TransportError.connectionRefused(endpoint)) {
            try SocketChannel.connect(to: endpoint, deadline: after(.seconds(60)))
        }

        let listener = try Listener(listeningOn: endpoint)
        defer { listener.close() }
        let client = try SocketChannel.connect(to: endpoint, deadline: after(.seconds(60)))
        defer { client.close() }
        let accepted = try listener.accept(deadline: after(.seconds(60)))
        defer { accepted.close() }
        try accepted.write([42], deadline: after(.seconds(60)))
        #expect(try client.read(exactly: 1, deadline: after(.seconds(60))) == [42])
    }

    @Test func aPathThatIsNotASocketIsLeftAlone() throws {
        let directory = TemporaryDirectory("sync")
        let path = directory.appending("notes.txt")
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: TransportError.notASocket(path: path)) { try Listener(listeningOn: .unix(path: path)) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("keep me".utf8))
    }

    @Test func closingTheListenerRemovesItsSocketFile() throws {
        let directory = TemporaryDirectory("sync")
        let path = directory.appending("gone.sock")
        let listener = try Listener(listeningOn: .unix(path: path))
        #expect(FileManager.default.fileExists(atPath: path))
        listener.close()
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(throws: TransportError.noSuchSocket(path: path)) {
            try SocketChannel.connect(to: .unix(path: path), deadline: after(.seconds(60)))
        }
    }

    @Test func theListenerReportsEachPeersProcess() throws {
        let directory = TemporaryDirectory("sync")
        let endpoint = Endpoint.unix(path: directory.appending("peer.sock"))
        let listener = try Listener(listeningOn: endpoint)
        defer { listener.close() }
        let client = try SocketChannel.connect(to: endpoint, deadline: after(.seconds(60)))
        defer { client.close() }
        let accepted = try listener.accept(deadline: after(.seconds(60)))
        defer { accepted.close() }
        #expect(accepted.description == "\(endpoint) (pid \(getpid()), uid \(getuid()))")
    }

    /// Leaves a socket file at `path` that nothing listens on, as a server
    /// killed with SIGKILL does: bound and listening, then closed without
    /// removing the file.
    private func makeStaleSocket(at path: String) throws {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        #expect(descriptor >= 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path.utf8) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0)
        #expect(listen(descriptor, 1) == 0)
        close(descriptor)
        #expect(FileManager.default.fileExists(atPath: path))
    }
}
