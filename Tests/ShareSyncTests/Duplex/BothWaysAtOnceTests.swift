import SampleCards
import ShareLog
import TestSupport
import Testing
@testable import ShareSync

/// A whole `--both` session in which each side has megabytes to send: each
/// side's sender writes its two 1 MiB batches while the other side writes
/// its own, far more than a Unix socket buffers. The session completes, and
/// both replicas end up holding every event.
@Suite(.timeLimit(.minutes(2))) struct BothWaysAtOnceTests {
    static let start = Timestamp(milliseconds: 1_800_000_000_000)

    static func open(_ path: String) throws -> ShareStore {
        var options = ShareStore.Options()
        options.clock = FixedClock(start)
        options.environment.durability = .noSync
        return try ShareStore.open(at: path, creatingIfMissing: true, options: options)
    }

    /// Every event id in a store's log.
    static func ids(_ store: ShareStore) throws -> Set<EventID> {
        Set(try store.events(after: 0, limit: 100_000, maxBytes: 1 << 30).map(\.event.id))
    }

    @Test func bothSidesSendingMegabytesAtOnceCompleteTheSession() throws {
        let directory = TemporaryDirectory("both")
        let a = try Self.open(directory.appending("a")), b = try Self.open(directory.appending("b"))
        // 12 cards with a 200,000-byte photo (about 270 kB of vCard each):
        // over 3 MiB, three or four batches, on each side.
        _ = try a.create(vCards: (0..<12).map { SampleCard.make(index: $0, photoBytes: 200_000) })
        _ = try b.create(vCards: (100..<112).map { SampleCard.make(index: $0, photoBytes: 200_000) })
        let made = try Self.ids(a).union(Self.ids(b))
        #expect(made.count == 24)
        // A stalled session ends at the write timeout, well inside the test's limit.
        var options = SessionOptions()
        options.writeTimeout = .seconds(15)
        let server = try InProcessServer(store: a, directory: directory, options: options)
        defer { server.stop() }
        var request = SyncRequest(endpoint: server.endpoint)
        request.directions = .both
        request.options = options
        let summary = try SyncClient.run(request, store: b)
        #expect(summary.eventsApplied == 12)
        #expect(summary.eventsSent == 12)
        #expect(try Self.ids(a) == made)
        #expect(try Self.ids(b) == made)
        #expect(try a.verify().isConsistent && b.verify().isConsistent)
    }
}
