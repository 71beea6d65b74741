import Foundation
import SampleCards
import ShareLog
import Synchronization
import TestSupport
import Testing
@testable import ShareSync
import TestTraits

/// A `--both --follow` session in which both replicas commit megabytes at
/// the same moment, so that both senders write 1 MiB batches at once, far
/// more than a Unix socket buffers (docs/SYNC.md "Both ways in one
/// session"). A side whose write blocks keeps reading what its peer
/// writes, so neither waits on the other: the one session carries every
/// burst, and both replicas end up holding every event. Before writes kept
/// reading, both sides' writes stalled until the write timeout ended the
/// session.
@Suite(.hangDeadline) struct BothWaysFollowTests {
    static let start = Timestamp(milliseconds: 1_800_000_000_000)
    /// Bursts, each of this many cards with a 200,000-byte photo (about
    /// 270 kB of vCard each: over 3 MiB, four batches) on each side.
    static let bursts = 3
    static let cardsPerBurst = 12

    static func open(_ path: String) throws -> ShareStore {
        var options = ShareStore.Options()
        options.clock = FixedClock(start)
        options.environment.durability = .noSync
        return try ShareStore.open(at: path, creatingIfMissing: true, options: options)
    }

    static func ids(_ store: ShareStore) throws -> Set<EventID> {
        Set(try store.events(after: 0, limit: 100_000, maxBytes: 1 << 30).map(\.event.id))
    }

    @Test func burstsOnBothSidesAtOnceTravelInOneSession() throws {
        let directory = TemporaryDirectory("both-follow")
        let server = try Self.open(directory.appending("server")), client = try Self.open(directory.appending("client"))
        // A stalled session would end at the write timeout: short, so that a
        // stall fails the session well inside the test's deadlines.
        var options = SessionOptions()
        options.writeTimeout = .seconds(5)
        let serving = try InProcessServer(store: server, directory: directory, options: options)
        defer { serving.stop() }

        let request = {
            var request = SyncRequest(endpoint: serving.endpoint)
            request.directions = [.pull, .push, .follow]
            request.options = options
            return request
        }()
        let context = SessionContext()
        let outcome = Mutex<Result<SyncSummary, SyncFailure>?>(nil)
        let following = Thread {
            let result = Result { () throws(SyncFailure) in try SyncClient.run(request, store: client, context: context) }
            outcome.withLock { $0 = result }
        }
        following.start()
        defer {
            context.stop()
            _ = try? Deadline.block(until: "the follower has stopped", timeout: .seconds(30)) { outcome.withLock { $0 != nil } }
        }

        var made: Set<EventID> = []
        for burst in 0..<Self.bursts {
            // Both stores commit at once, each from a thread of its own.
            let go = DispatchSemaphore(value: 0)
            let done = DispatchGroup()
            let failures = Mutex<[String]>([])
            for (side, store) in [(0, server), (1, client)] {
                let first = (burst * 2 + side) * Self.cardsPerBurst
                DispatchQueue.global().async(group: done) {
                    go.wait()
                    do { _ = try store.create(vCards: (first..<first + Self.cardsPerBurst).map { SampleCard.make(index: $0, photoBytes: 200_000) }) }
                    catch { failures.withLock { $0.append("\(error)") } }
                }
            }
            go.signal()
            go.signal()
            #expect(done.wait(timeout: .now() + 60) == .success)
            #expect(failures.withLock { $0 } == [])
            made.formUnion(try Self.ids(server))
            made.formUnion(try Self.ids(client))
            #expect(made.count == (burst + 1) * 2 * Self.cardsPerBurst)
            try Deadline.block(until: "both replicas hold burst \(burst + 1) of \(Self.bursts)", timeout: .seconds(60), every: .milliseconds(20)) {
                if let ended = outcome.withLock({ $0 }) { throw SessionEnded(result: ended, log: serving.log.all) }
                return try Self.ids(server) == made && Self.ids(client) == made
            }
        }
        #expect(outcome.withLock { $0 == nil }, "the follower's one session carried every burst")
    }

    /// The follower's session ended while it should have been following.
    struct SessionEnded: Error, CustomStringConvertible {
        let result: Result<SyncSummary, SyncFailure>
        let log: [String]
        var description: String { "the follower's session ended mid-burst: \(result); the server logged \(log)" }
    }
}
