import Foundation
import SampleCards
import ShareLog
import ShareSync
import TestSupport
import Testing
import TestTraits
import SharePrimitives

/// A link slower than one batch per timeout: a session lives as long as
/// bytes move, however long a whole batch takes (docs/SYNC.md "Server").
@Suite(.hangDeadline, .ownThread) struct SlowLinkTests {
    @Test func aPullOverALinkSlowerThanABatchPerTimeoutCompletesInOneSession() throws {
        let directory = TemporaryDirectory("slow")
        let main = try SessionFlowTests.open(directory.appending("main"))
        // 1.2 MB of cards: two batches, the first (1 MiB) at least three
        // times longer on a link of at most 100 KB/s than either side's 3 s
        // timeouts, which leave room for a loaded machine's pauses.
        _ = try main.create(vCards: (0..<200).map { SampleCard.make(index: $0, photoBytes: 4_500) })
        var options = SessionOptions()
        options.heartbeatInterval = .milliseconds(500)
        options.peerTimeout = .seconds(3)
        options.writeTimeout = .seconds(3)
        let server = try InProcessServer(store: main, directory: directory, options: options)
        guard case .unix(let serverPath) = server.endpoint else { Issue.record("not a Unix socket: \(server.endpoint)"); return }
        let relay = try FrameRelay(at: directory.appending("r.sock"), serverBytesPerTick: 1_024)

        let replica = try SessionFlowTests.open(directory.appending("replica"))
        var request = SyncRequest(endpoint: .unix(path: relay.path))
        request.options = options
        let slowRequest = request
        let outcome = Outcome()
        let client = Thread {
            do { outcome.set(.success(try SyncClient.run(slowRequest, store: replica))) } catch { outcome.set(.failure(error)) }
        }
        client.start()
        let connections = try relay.relay(to: serverPath, while: { outcome.value == nil }, timeout: .seconds(120))

        let summary = try #require(try outcome.value?.get())
        #expect(connections.count == 1)
        #expect(summary.eventsReceived == 200)
        #expect(try SessionFlowTests.ids(replica) == SessionFlowTests.ids(main))
        #expect(try replica.verify().isConsistent)
    }
}

/// The client thread's result, read by the test's thread.
private final class Outcome: Sendable {
    private let result = Locked<Result<SyncSummary, any Error>?>(nil)
    func set(_ value: Result<SyncSummary, any Error>) { result.withLock { $0 = value } }
    var value: Result<SyncSummary, any Error>? { result.withLock { $0 } }
}
