import Foundation
import ShareLog
import ShareSync
import Synchronization
import Testing
import TestSupport
import TestTraits

/// The async entry points of sync: cancelling the task that awaits a
/// server or a follower stops it as a signal stops `sharelog serve` or
/// `sync --follow` (docs/EMBEDDING.md "Threads and async").
@Suite(.hangDeadline) struct AsyncSyncTests {
    @Test func cancellingTheServingTaskStopsTheServerAndClosesItsListener() async throws {
        let directory = TemporaryDirectory("async")
        let main = try SessionFlowTests.open(directory.appending("main"))
        _ = try await main.create(vCards: (0..<5).map(SessionFlowTests.card))
        var configuration = SyncServerConfiguration(endpoint: .unix(path: directory.appending("s.sock")))
        let log = LogLines()
        configuration.log = { log.append($0.message) }
        let server = SyncServer(store: main, configuration: configuration)
        let listening = Mutex<Endpoint?>(nil)
        let ended = Atomic<Bool>(false)
        let serving = Task {
            defer { ended.store(true, ordering: .releasing) }
            try await server.serve { endpoint in listening.withLock { $0 = endpoint } }
        }
        try await Deadline.wait(until: "the server listens") { listening.withLock { $0 } != nil }
        let request = SyncRequest(endpoint: try #require(listening.withLock { $0 }))

        let follower = try SessionFlowTests.open(directory.appending("follower"))
        #expect(try await SyncClient.run(request, store: follower).eventsApplied == 5)

        serving.cancel()
        try await Deadline.wait(until: "the cancelled server returns", timeout: .seconds(30)) { ended.load(ordering: .acquiring) }
        try await serving.value
        #expect(!FileManager.default.fileExists(atPath: directory.appending("s.sock")), "the socket file after the stop")
        await #expect(throws: SyncFailure.self) { try await SyncClient.run(request, store: follower) }
    }

    @Test func cancellingAFollowingTaskEndsItsSessionWell() async throws {
        let directory = TemporaryDirectory("async")
        let main = try SessionFlowTests.open(directory.appending("main"))
        let server = try InProcessServer(store: main, directory: directory)
        let follower = try SessionFlowTests.open(directory.appending("follower"))
        let sessions = Mutex<[String]>([])
        let ended = Atomic<Bool>(false)
        let following = Task {
            defer { ended.store(true, ordering: .releasing) }
            await SyncClient.follow(SyncRequest(endpoint: server.endpoint), store: follower) { result in
                sessions.withLock { $0.append("\(result)") }
            }
        }
        let share = try await main.create(vCard: SessionFlowTests.card(1))
        try await Deadline.wait(until: "the follower has the share", timeout: .seconds(30)) {
            if case .live = try follower.fetch(share.recordName) { true } else { false }
        }

        following.cancel()
        try await Deadline.wait(until: "the cancelled follower returns", timeout: .seconds(30)) { ended.load(ordering: .acquiring) }
        #expect(sessions.withLock { $0 }.count == 1, "\(sessions.withLock { $0 })")
        #expect(sessions.withLock { $0 }.first?.hasPrefix("success") == true, "\(sessions.withLock { $0 })")
        try await Deadline.wait(until: "the server logs the follower's session", timeout: .seconds(30)) {
            server.log.all.contains { $0.contains("pull+follow: ended well; received 0 events (0 new), sent 1") }
        }
    }
}
