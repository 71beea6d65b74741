import Foundation
import Glibc
import ShareLog
import Testing
import TestSupport
@testable import ShareSync
import TestTraits

/// How a server's session ends when its client goes while the server is
/// answering.
@Suite(.hangDeadline) struct ServerSessionEndTests {
    /// What a client that pulls from the start asks first.
    static let pull = Message.pull(Message.Pull(knownEpoch: nil, after: 0, follow: false, maxBatchBytes: 1 << 20, heldOfYou: 0))
    static let stopping = Message.error(code: .shuttingDown, message: "the client is stopping")

    /// Runs a server's session, holding three shares, against a client
    /// that wrote `messages` and closed its end before the server read
    /// any of them: the server's answer to the pull meets a closed
    /// connection every time.
    static func serve(_ messages: [Message]) throws -> Result<SyncSummary, SyncFailure> {
        let directory = TemporaryDirectory("sync")
        let store = try SessionFlowTests.open(directory.appending("main"))
        _ = try store.create(vCards: (0..<3).map(SessionFlowTests.card))
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw TransportError.system(operation: "socketpair", errno: errno)
        }
        let server = SocketChannel(adopting: ends[0], peer: "the client")
        let client = SocketChannel(adopting: ends[1], peer: "the server")
        defer { server.close() }
        try client.write(messages.flatMap { FrameEncoder.encode($0.frame) }, deadline: .now + .seconds(10))
        client.close()

        let peer = EstablishedPeer(
            replica: ReplicaID(uuid: UUID()), epoch: Epoch(uuid: UUID()), role: .main, directions: .pull, version: 2, heldOfYou: 0)
        let context = SessionContext()
        let wake = try context.registeredSignal()
        defer { context.release(wake) }
        let options = SessionOptions()
        let runner = try SessionRunner(
            store: store, messages: MessageChannel(server, maxFrameBytes: options.maxFrameBytes), peer: peer, isClient: false,
            options: options, wake: wake, context: context)
        return Result { () throws(SyncFailure) in try runner.run() }
    }

    /// A client that stops right after a pull has sent `error(shuttingDown)`
    /// and closed: the session ended well, though the server's batch found
    /// the connection closed before the stop was read. Before, the server
    /// logged "closed the connection early" for a follower cancelled at
    /// the wrong moment (one `AsyncSyncTests` run in fifteen under load).
    @Test func aClientThatStopsWhileTheServerAnswersEndsTheSessionWell() throws {
        let outcome = try Self.serve([Self.pull, Self.stopping])
        guard case .success = outcome else {
            Issue.record("the session ended with \(outcome)")
            return
        }
    }

    /// A client that closes after its pull without a word is still a
    /// connection closed early.
    @Test func aClientThatClosesWithoutAWordEndsTheSessionEarly() throws {
        let outcome = try Self.serve([Self.pull])
        guard case .failure(let failure) = outcome else {
            Issue.record("the session ended with \(outcome)")
            return
        }
        #expect(failure.isConnectionLost, "\(failure)")
    }
}
