import CBaseline
import Foundation
import ShareLog

/// Sync workload 4, snapshot bootstrap: a new replica pulls from a main
/// server (another process) whose log was trimmed, so its cursor is behind
/// the horizon and it bootstraps from a snapshot of `syncSnapshotShares`
/// live shares of 1 KB cards. Figures: the time from connect to the end of
/// the session, which follows the last durable commit, the bytes received,
/// and events/s (comparable with the catch-up of as many plain events).
///
/// The main store: a hundredth as many shares created and ended two months
/// before, swept and trimmed (`trim`, 60 days' retention), then the live
/// shares, all through ShareLog's API on a set clock.
public struct SnapshotWorkload: Workload {
    public let name = "snapshot"

    public init() {}

    public func run(in context: BenchContext, recording measurements: inout Measurements) async throws {
        let configuration = context.configuration
        let count = configuration.syncSnapshotShares
        let deck = CardDeck(mixed: false, pool: configuration.cardPool)
        let bench = SyncBench(context: context)
        let mainPath = context.storePath("snapshot-main", .shareLog)
        let receiverPath = context.storePath("snapshot-receiver", .shareLog)
        let sockets = try SyncBench.socketDirectory()
        defer {
            for path in [mainPath, receiverPath, sockets] { context.remove(path) }
        }
        context.progress("snapshot: filling and trimming a main store of \(Formatting.grouped(count)) live shares")
        try Self.fillTrimmed(at: mainPath, deck: deck, live: count, ended: max(count / 100, 1))
        let server = try bench.startServer(store: mainPath, socket: sockets + "/main.sock")
        defer { server.stop() }
        for round in 0..<configuration.syncRounds {
            context.progress("snapshot: round \(round + 1)")
            context.remove(receiverPath)
            let receiver = try SyncBench.openReplica(at: receiverPath)
            let stopwatch = Stopwatch()
            let summary = try SyncBench.pull(from: sockets + "/main.sock", into: receiver)
            let seconds = stopwatch.seconds
            guard summary.snapshots == 1, summary.eventsApplied == count else {
                throw BenchError.mismatch("the bootstrap took \(summary.snapshots) snapshots and applied \(summary.eventsApplied) of \(count) events")
            }
            measurements.record(
                "sync.snapshot", title: "snapshot bootstrap of a new replica, 1 KB cards (durable)", unit: "s",
                higherIsBetter: false, system: .shareLog, value: seconds)
            measurements.record(
                "sync.snapshot.rate", title: "  live shares received", unit: "events/s",
                higherIsBetter: true, system: .shareLog, value: Double(count) / seconds)
            measurements.record(
                "sync.snapshot.bytes", title: "  bytes received", unit: "MB",
                higherIsBetter: false, comparable: false, system: .shareLog, value: Double(summary.bytesIn) / 1e6)
        }
    }

    /// A store at `path` whose log was trimmed: `ended` shares created at
    /// `BenchTime.start` for an hour, swept, and trimmed 61 days later;
    /// then `live` shares created, for 30 days from `SyncBench.now`. Made
    /// without syncing, then synced to disk and closed.
    static func fillTrimmed(at path: String, deck: CardDeck, live: Int, ended: Int) throws {
        let clock = BenchClock()
        var options = ShareStore.Options()
        options.clock = clock
        options.environment.durability = .noSync
        let start = SyncBench.now - 61 * BenchTime.day
        do {
            let store = try ShareStore.open(at: path, creatingIfMissing: true, options: options)
            clock.set(start)
            _ = try store.create(vCards: (0..<ended).map { deck.card($0) }, ttl: .seconds(3600))
            _ = try store.sweep(at: Timestamp(milliseconds: start + 2 * BenchTime.hour))
            let trimmed = try store.trim(at: Timestamp(milliseconds: SyncBench.now))
            guard trimmed.shares == ended else { throw BenchError.mismatch("the trim forgot \(trimmed.shares) of \(ended) ended shares") }
            clock.set(SyncBench.now)
            for first in stride(from: 0, to: live, by: 1000) {
                _ = try store.create(vCards: (first..<min(first + 1000, live)).map { deck.card($0) }, ttl: .seconds(30 * 24 * 3600))
            }
        }
        let rc = cb_fsync_directory(path)
        if rc != 0 { throw BenchError.io("fsync of \(path) failed: \(String(cString: strerror(rc)))") }
    }
}
