import Dispatch
import Foundation
@testable import ShareHTTP
@testable import ShareLog
import Synchronization
import Testing
import TestSupport
import TestTraits

/// A write waits for a durable commit away from libmicrohttpd's threads
/// (`HTTPResponder.mayBlock`, `OffThreadAnswers`): with one server thread,
/// a read on another connection is answered while an upload waits for the
/// store's writer, and the upload is answered once the writer is free.
@Suite(.hangDeadline) struct OffThreadAnswersTests {
    static let card = Array("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Waiting Person\r\nEND:VCARD\r\n".utf8)

    /// A store with one share and a token, served by a one-thread gateway
    /// with the write API, and the upload request of `Self.card`.
    struct Fixture {
        let directory = TemporaryDirectory()
        let store: ShareStore
        let share: CreatedShare
        let server: HTTPServer
        let port: UInt16
        let upload: [UInt8]
        /// `DELETE /v1/shares/ID` of `share`: a revocation, with no body.
        let revocation: [UInt8]

        init() throws {
            store = try ShareStore.open(at: directory.appending("store"), creatingIfMissing: true)
            share = try store.create(vCard: OffThreadAnswersTests.card, ttl: .seconds(3600))
            let token = BearerToken.generate()
            try store.addToken(StoredToken(
                id: token.id, name: "ios-app", scopes: .all, createdAt: Timestamp(milliseconds: 0), expiresAt: nil, secretHash: token.secretHash))
            var configuration = HTTPServerConfiguration(endpoint: .tcp(host: "127.0.0.1", port: 0))
            configuration.threads = 1
            server = try HTTPServer(
                serving: Gateway(source: store, configuration: GatewayConfiguration(), writeAPI: WriteAPI(store: store, limit: nil)),
                configuration: configuration, log: { _ in })
            guard case .tcp(_, let port) = server.endpoint else { throw HarnessFailure.unexpected("the gateway is not on TCP") }
            self.port = port
            let card = OffThreadAnswersTests.card
            upload = Array(("POST /v1/shares HTTP/1.0\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token.text)\r\n"
                + "Idempotency-Key: waits-1\r\nContent-Type: text/vcard\r\nContent-Length: \(card.count)\r\n\r\n").utf8) + card
            revocation = Array("DELETE /v1/shares/\(share.recordName) HTTP/1.0\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token.text)\r\n\r\n".utf8)
        }

        /// Holds the store's writer until the returned semaphore is
        /// signalled: every write queues behind it.
        func holdWriter() throws -> DispatchSemaphore {
            let holding = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
            let store = store
            Thread { _ = try? store.write { _ in holding.signal(); release.wait() } }.start()
            guard holding.wait(timeout: .now() + 30) == .success else { throw HarnessFailure.unexpected("the writer was not held") }
            return release
        }

        /// Sends `request` (the upload by default) from a thread of its own.
        func startUpload(_ request: [UInt8]? = nil) -> SentUpload {
            let sent = SentUpload()
            let (port, upload) = (port, request ?? upload)
            Thread {
                let result = Result { () throws(LoopbackError) in try LoopbackHTTP.exchange(port: port, request: upload, timeout: .seconds(60)) }
                sent.answered.withLock { $0 = result }
                sent.done.signal()
            }.start()
            return sent
        }
    }

    /// An upload sent from a thread of its own: its answer (or failure) is
    /// in `answered` once `done` is signalled.
    final class SentUpload: Sendable {
        let answered = Mutex<Result<LoopbackHTTP.Response, LoopbackError>?>(nil)
        let done = DispatchSemaphore(value: 0)
    }

    @Test func aReadIsAnsweredWhileAnUploadOnTheSameThreadWaitsForTheWriter() throws {
        let fixture = try Fixture()
        defer { fixture.server.stop(grace: .seconds(1)) }
        let release = try fixture.holdWriter()
        defer { release.signal() }
        let upload = fixture.startUpload()
        try Deadline.block(until: "the upload is being answered") { fixture.server.statistics.inFlight == 1 }

        let read = try LoopbackHTTP.get(port: fixture.port, path: "/appclip?id=\(fixture.share.recordName)", timeout: .seconds(10))
        #expect(read.status == 200, "the read is answered while the upload waits")
        #expect(upload.answered.withLock { $0 } == nil, "the upload still waits for the writer")

        release.signal()
        #expect(upload.done.wait(timeout: .now() + 60) == .success, "the upload is answered once the writer is free")
        let response = try #require(try upload.answered.withLock { $0 }?.get())
        #expect(response.status == 201, "\(response.text)")
        #expect(try fixture.store.stats().live == 2)
    }

    /// A revocation is a write too: it waits for the writer off the
    /// server's thread, and a read is answered meanwhile.
    @Test func aReadIsAnsweredWhileARevocationWaitsForTheWriter() throws {
        let fixture = try Fixture()
        defer { fixture.server.stop(grace: .seconds(1)) }
        let release = try fixture.holdWriter()
        defer { release.signal() }
        let revocation = fixture.startUpload(fixture.revocation)
        try Deadline.block(until: "the revocation is being answered") { fixture.server.statistics.inFlight == 1 }

        let read = try LoopbackHTTP.get(port: fixture.port, path: "/appclip?id=\(fixture.share.recordName)", timeout: .seconds(10))
        #expect(read.status == 200, "the share is still live, and the read is answered while the revocation waits")

        release.signal()
        #expect(revocation.done.wait(timeout: .now() + 60) == .success, "the revocation is answered once the writer is free")
        let response = try #require(try revocation.answered.withLock { $0 }?.get())
        #expect(response.status == 204, "\(response.text)")
        guard case .expired(_, .revoked) = try fixture.store.fetch(fixture.share.recordName) else {
            Issue.record("the share is not revoked: \(try fixture.store.fetch(fixture.share.recordName))"); return
        }
    }

    /// libmicrohttpd must not stop with a connection suspended (it aborts
    /// the process): a stop while an upload waits lets the upload commit
    /// first, then ends.
    @Test func stoppingWhileAnUploadWaitsLetsItCommitFirst() throws {
        let fixture = try Fixture()
        let release = try fixture.holdWriter()
        let upload = fixture.startUpload()
        try Deadline.block(until: "the upload is being answered") { fixture.server.statistics.inFlight == 1 }
        let stopped = DispatchSemaphore(value: 0)
        let server = fixture.server
        Thread { server.stop(grace: .zero); stopped.signal() }.start()
        // The stop has closed the listening socket, so it is past waiting
        // for answers (no grace) and at the daemon's stop; a moment more
        // lets a stop that did not wait for the upload reach the library.
        try Deadline.block(until: "the stop closes the listening socket") { LoopbackSocket.refusesConnections(port: fixture.port) }
        Thread.sleep(forTimeInterval: 0.2)
        #expect(upload.answered.withLock { $0 } == nil, "the upload still waits for the writer")
        release.signal()
        #expect(stopped.wait(timeout: .now() + 60) == .success, "the stop ends once the upload has committed")
        #expect(upload.done.wait(timeout: .now() + 60) == .success, "the upload's connection ends")
        #expect(try fixture.store.stats().live == 2, "the upload committed")
    }
}
