import CBaseline
import Foundation
import ShareLog

/// Sync workload 1, catch-up: a new replica pulls `syncEvents` creations
/// (1 KB cards, then the 9:1 photo mix) from a main server in another
/// process over a Unix socket, timed from connect to the return of the
/// session, which follows the receiver's last durable commit. Figures:
/// events/s and MB/s, and the RssAnon of both processes.
///
/// The anchors, in the same rounds with the order rotated:
/// - ShareLog's local batched ingest: the same batches the server sends
///   (`replicationBatch`, 1 MiB) applied with their cursor
///   (`apply(_:advancing:)`) into a new store, read into memory first;
/// - the session's bytes through a Unix socket between two processes,
///   with nothing else done;
/// - a Redis replica's full sync of the same cards, each a key, from a
///   master filled beforehand.
public struct CatchUpWorkload: Workload {
    public let name = "catchup"

    public init() {}

    /// The ways of moving the events that each round runs.
    enum Way: CaseIterable { case sync, local, socket, redis }

    public func run(in context: BenchContext, recording measurements: inout Measurements) async throws {
        for (mixed, label) in [(false, "plain"), (true, "mixed")] {
            try await run(deck: CardDeck(mixed: mixed, pool: context.configuration.cardPool), label: label, context, &measurements)
        }
    }

    private func run(deck: CardDeck, label: String, _ context: BenchContext, _ measurements: inout Measurements) async throws {
        let configuration = context.configuration
        let count = configuration.syncEvents
        let bench = SyncBench(context: context)
        let main = context.storePath("catchup-\(label)-main", .shareLog)
        let receiver = context.storePath("catchup-\(label)-receiver", .shareLog)
        let redisPath = context.storePath("catchup-\(label)", .redis)
        let sockets = try SyncBench.socketDirectory()
        defer {
            for path in [main, receiver, redisPath, sockets] { context.remove(path) }
        }
        context.progress("catch-up, \(label): filling the main store with \(Formatting.grouped(count)) shares")
        _ = try bench.fillMain(at: main, deck: deck, count: count)
        let batches = try Self.batches(of: main)
        let server = try bench.startServer(store: main, socket: sockets + "/main.sock")
        defer { server.stop() }

        let title = label == "plain" ? "1 KB cards" : "9:1 photo mix"
        var sessionBytes = 0
        for round in 0..<configuration.syncRounds {
            let shift = round % Way.allCases.count
            for way in Way.allCases[shift...] + Way.allCases[..<shift] {
                context.remove(receiver)
                switch way {
                case .sync:
                    context.progress("catch-up, \(label): round \(round + 1), ShareLog sync")
                    let outcome = try Self.pull(count: count, from: sockets + "/main.sock", into: receiver, server: server)
                    sessionBytes = outcome.bytes
                    record(&measurements, label, title, .shareLog, count: count, bytes: outcome.bytes, seconds: outcome.seconds)
                    let (own, peer) = outcome.memory
                    for (side, trace) in [("receiver", own), ("server", peer)] {
                        measurements.record(
                            "sync.catchup.\(label).rssAnon.\(side)Half", title: "  RssAnon growth of the \(side), at half the events",
                            unit: "MiB", higherIsBetter: false, comparable: false, system: .shareLog, value: trace.growthMiB(atFraction: 0.5))
                        measurements.record(
                            "sync.catchup.\(label).rssAnon.\(side)Peak", title: "  RssAnon growth of the \(side), peak",
                            unit: "MiB", higherIsBetter: false, comparable: false, system: .shareLog, value: trace.peakGrowthMiB)
                    }
                case .local:
                    context.progress("catch-up, \(label): round \(round + 1), local batched ingest")
                    let ingested = try Self.ingest(batches, into: receiver, count: count)
                    measurements.record(
                        "sync.catchup.\(label).local", title: "  anchor: local batched ingest (apply, no socket)", unit: "events/s",
                        higherIsBetter: true, system: .shareLog, value: Double(count) / ingested.seconds)
                    measurements.record(
                        "sync.catchup.\(label).localWritten", title: "    bytes written per event by the local ingest", unit: "KiB",
                        higherIsBetter: false, comparable: false, system: .shareLog, value: Double(ingested.written) / 1024 / Double(count))
                case .socket:
                    // The first round's session tells how many bytes a session moves.
                    guard sessionBytes > 0 else { continue }
                    context.progress("catch-up, \(label): round \(round + 1), socket copy")
                    let copied = try SocketAnchor.copy(bytes: sessionBytes)
                    guard copied.value == sessionBytes else { throw BenchError.mismatch("the socket copy moved \(copied.value) of \(sessionBytes) bytes") }
                    measurements.record(
                        "sync.catchup.\(label).socket", title: "  anchor: the session's bytes through a Unix socket alone", unit: "MB/s",
                        higherIsBetter: true, system: .shareLog, value: Double(sessionBytes) / copied.seconds / 1e6)
                case .redis:
                    context.progress("catch-up, \(label): round \(round + 1), Redis: filling a master, then a replica's full sync")
                    let sync = try Self.redisFullSync(deck: deck, count: count, under: redisPath)
                    record(&measurements, label, title, .redis, count: count, bytes: sync.bytes, seconds: sync.persisted)
                    measurements.record(
                        "sync.catchup.\(label).redisLoaded", title: "  Redis replica holding every key in memory, before its AOF is written",
                        unit: "events/s", higherIsBetter: true, system: .redis, value: Double(count) / sync.loaded)
                }
            }
        }
        context.remove(receiver)
    }

    /// A new Redis master filled with `count` cards of `deck`, and the
    /// full sync of a new replica from it (`RedisReplicaPair`), in
    /// directories under `directory`, removed afterwards.
    static func redisFullSync(deck: CardDeck, count: Int, under directory: String) throws -> RedisReplicaPair.FullSync {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let pair = try RedisReplicaPair(
            masterPath: (directory as NSString).appendingPathComponent("master"),
            replicaPath: (directory as NSString).appendingPathComponent("replica"))
        defer { pair.close() }
        _ = try pair.fill(deck, first: 0, count: count)
        return try pair.fullSync(expectedKeys: count, deadline: .seconds(600))
    }

    private func record(_ measurements: inout Measurements, _ label: String, _ title: String, _ system: BenchSystem, count: Int, bytes: Int, seconds: Double) {
        measurements.record(
            "sync.catchup.\(label)", title: "catch-up of a new replica, \(title) (durable)", unit: "events/s",
            higherIsBetter: true, system: system, value: Double(count) / seconds)
        measurements.record(
            "sync.catchup.\(label).mbps", title: "  bytes received", unit: "MB/s",
            higherIsBetter: true, system: system, value: Double(bytes) / seconds / 1e6)
    }

    /// The batches a server sends a new replica, read from the store at
    /// `path`: what the local ingest applies.
    static func batches(of path: String) throws -> [(events: [Event], cursor: PeerCursor)] {
        let store = try SyncBench.openReplica(at: path)
        var batches: [(events: [Event], cursor: PeerCursor)] = []
        var position: UInt64 = 0
        var epoch: Epoch?
        while true {
            let batch = try store.replicationBatch(after: position, inEpoch: epoch)
            guard batch.through > position else { return batches }
            batches.append((batch.events, PeerCursor(
                peer: store.replicaID, epoch: batch.epoch, position: batch.through, lastSeen: Timestamp(milliseconds: SyncBench.now))))
            position = batch.through
            epoch = batch.epoch
        }
    }

    /// Applies `batches` into a new store at `path`, one durable
    /// transaction each.
    ///
    /// - Returns: the seconds the applies took, and the bytes this process
    ///   sent to storage meanwhile (`write_bytes`, which counts pages
    ///   written through the map).
    static func ingest(
        _ batches: [(events: [Event], cursor: PeerCursor)], into path: String, count: Int
    ) throws -> (seconds: Double, written: Int) {
        let store = try SyncBench.openReplica(at: path)
        let writtenBefore = cb_write_bytes()
        let stopwatch = Stopwatch()
        var applied = 0
        for batch in batches { applied += try store.apply(batch.events, advancing: batch.cursor).applied }
        let seconds = stopwatch.seconds
        let written = Int(cb_write_bytes() - writtenBefore)
        guard applied == count else { throw BenchError.mismatch("the local ingest applied \(applied) of \(count) events") }
        return (seconds, written)
    }

    /// One pull of `count` events into a new store at `path`, sampling both
    /// processes' RssAnon.
    static func pull(
        count: Int, from socket: String, into path: String, server: PeerProcess
    ) throws -> (seconds: Double, bytes: Int, memory: (own: MemoryTrace, peer: MemoryTrace)) {
        let store = try SyncBench.openReplica(at: path)
        let sampler = RssSampler(peer: server.pid)
        let stopwatch = Stopwatch()
        let summary = try SyncBench.pull(from: socket, into: store) { sampler.events.store($0.eventsApplied, ordering: .relaxed) }
        let seconds = stopwatch.seconds
        let memory = sampler.finish()
        guard summary.eventsApplied == count else {
            throw BenchError.mismatch("the replica applied \(summary.eventsApplied) of \(count) events")
        }
        return (seconds, summary.bytesIn, memory)
    }
}
