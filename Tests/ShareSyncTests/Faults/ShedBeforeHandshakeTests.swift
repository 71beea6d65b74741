import Foundation
import ShareLog
import ShareSync
import Testing
import TestSupport
import TestTraits

/// A server under a flood drops arrivals whose handshake has not ended
/// (docs/SYNC.md "Places"). A client so dropped tries again, as it does a
/// `busy` server, within `busyRetryWindow`; past the window it reports
/// the dropped connection.
@Suite(.hangDeadline) struct ShedBeforeHandshakeTests {
    @Test func aClientDroppedBeforeItsHandshakeEndedTriesAgainAndSyncs() throws {
        let directory = TemporaryDirectory("shed")
        let main = try SessionFlowTests.open(directory.appending("main"))
        _ = try main.create(vCards: (0..<3).map(SessionFlowTests.card))
        let server = try InProcessServer(store: main, directory: directory)
        defer { server.stop() }
        guard case .unix(let target) = server.endpoint else { Issue.record("not a Unix endpoint"); return }
        let proxy = try SheddingProxy(path: directory.appending("proxy.sock"), target: target, shed: 2)
        defer { proxy.stop() }

        let follower = try SessionFlowTests.open(directory.appending("follower"))
        let summary = try SyncClient.run(SyncRequest(endpoint: .unix(path: proxy.path)), store: follower)
        #expect(summary.eventsApplied == 3)
        #expect(proxy.connections == 3, "two connections dropped, the third served")
    }

    @Test func aServerThatAlwaysDropsIsReportedOnceTheWindowHasPassed() throws {
        let directory = TemporaryDirectory("shed")
        let proxy = try SheddingProxy(path: directory.appending("proxy.sock"), target: directory.appending("nothing.sock"), shed: .max)
        defer { proxy.stop() }
        var request = SyncRequest(endpoint: .unix(path: proxy.path))
        request.options.busyRetryWindow = .seconds(1)
        let follower = try SessionFlowTests.open(directory.appending("follower"))
        #expect {
            try SyncClient.run(request, store: follower)
        } throws: { error in
            guard let failure = error as? SyncFailure else { return false }
            switch failure {
            case .peerClosed, .transport(.peerClosed), .transport(.connectionReset): return true
            default: return false
            }
        }
        #expect(proxy.connections >= 2, "it tried again before it gave up")
    }
}
