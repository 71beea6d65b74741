import Foundation
@testable import ShareLog
import TestSupport
import Testing
import TestTraits
@testable import BenchmarkKit

/// Keeps the benchmark from rotting: every workload runs at tiny sizes for
/// every system that takes part in it (Redis included, with its own
/// redis-server), and the C-LMDB baseline still writes exactly what ShareLog
/// writes. Timings are never asserted; they mean nothing at these sizes.
@Suite(.timeLimit(.minutes(8)), .ownThread) struct BenchmarkSmokeTests {
    @Test func everyWorkloadRunsAtTinySizesForEverySystem() async throws {
        let directory = TemporaryDirectory()
        let work = directory.appending("work")
        // The debug sharelog-cold stands in for the statically linked one.
        let executables = Executables.besideThisProcess()
        let context = BenchContext(
            configuration: .smoke, workDirectory: work,
            executables: Executables(bench: executables.bench, cold: executables.cold, staticCold: executables.cold, coldC: executables.coldC),
            log: { _ in })
        let report = try await BenchmarkRunner(context: context).run(on: .current(swift: "smoke test"))

        let ids = Set(report.measurements.figures.map(\.id))
        let expected = Set<String>([
            "create.onePerCommit", "create.concurrent", "create.concurrent.sharesPerCommit", "create.batched",
            "create.batched.written", "fetch.threads1", "fetch.threads2", "memory.perShare",
            "sweep.n20.e20", "sweep.n20.e20.written", "sweep.n20.e20.floor", "sweep.n20.e20.removed",
            "sweep.n60.e20", "sweep.n60.e20.written", "sweep.n60.e20.floor", "sweep.n60.e20.removed",
            "sweep.n60.e10", "sweep.n60.e10.removed", "replay", "replay.rssAnonHalf", "replay.rssAnonPeak",
            "coldStart", "coldStart.processOnly", "coldStart.static", "coldStart.static.processOnly",
            "preview.card100k", "preview.overBase64",
            "create.concurrent.delay", "create.concurrent.delay.sharesPerCommit", "create.concurrent.noDelay",
            "create.concurrent.noDelay.sharesPerCommit", "create.concurrent.delay.vsSQLiteOnePerCommit",
            "create.concurrent.delay.vsNoDelay", "create.lone.delay", "create.lone.noDelay", "create.lone.delay.vsNoDelay",
        ]).union(Self.syncFigures)
        #expect(ids == expected)
        // Every figure has a measurement for exactly the systems that run it:
        // all four, but the replay and the cold start, which only the
        // embedded stores have. The values are timings, so they are only
        // checked to be measured at all: a workload that did nothing shows as
        // zero, NaN or infinity.
        let embeddedOnly: Set = ["replay", "coldStart", "coldStart.static"]
        for figure in report.measurements.figures where figure.comparable {
            let systems: Set = figure.id.hasSuffix(".processOnly") ? ["ShareLog", "C-LMDB"]
                : embeddedOnly.contains(figure.id) ? ["ShareLog", "C-LMDB", "SQLite"]
                : figure.id.hasPrefix("sync.") ? Self.syncSystems(figure.id)
                : ["ShareLog", "C-LMDB", "SQLite", "Redis"]
            #expect(Set(figure.results.keys) == systems, "\(figure.id)")
            // An idle process's CPU time may truly be zero over the smoke
            // run's one-second window; every other figure must be positive.
            let mayBeZero = figure.id.hasSuffix("idleCPU") || figure.id.contains("idleCPU.")
            for system in systems {
                let values = figure.results[system]?.values ?? []
                #expect(!values.isEmpty && values.allSatisfy { $0.isFinite && ($0 > 0 || (mayBeZero && $0 == 0)) }, "\(figure.id), \(system): \(values)")
            }
        }
        try expectRedisRows(report)
        #expect(RedisProcesses.running(under: directory.path) == [], "every redis-server was stopped")
        #expect(PeerProcesses.running(under: directory.path) == [], "every sync peer was stopped")
        #expect(PeerProcesses.natsServers(under: directory.path) == [], "every nats-server was stopped")
        // fetch vs C-LMDB and SQLite; batched vs C-LMDB and SQLite, and its
        // bytes; concurrent; sweep flatness, vs SQLite below N=100k (the
        // smoke run has no larger N) and the floor; replay and its RssAnon;
        // two cold starts.
        #expect(Set(report.targets.map(\.id)) == [
            "fetch.vsC-LMDB", "fetch.vsSQLite", "batched.vsC-LMDB", "batched.vsSQLite", "batched.bytesVsSQLite",
            "concurrent.vsSQLiteOnePerCommit", "sweep.flat", "sweep.vsSQLite.0", "sweep.floor",
            "replay.vsC-LMDB", "replay.rssAnonFlat", "coldStart.vsC-LMDB", "coldStart.static.vsC-LMDB",
            "sync.catchup.vsLocal", "sync.catchup.vsRedis", "sync.catchup.rssAnonFlat", "sync.follow.p50",
            "sync.follow.otherProcess.p50", "sync.follow.idleCPU", "sync.relay.delay.p50", "sync.relay.catchup.vsDirect", "sync.relay.idleCPU",
            "sync.clip.vsRedis", "sync.clip.p99",
        ])
        try expectSyncOutcomes(report)
        // The floor's bytes per share, by docs/FORMAT.md: a shareExpired
        // event (35 + 25 bytes) under its 8-byte log position, its eventIndex
        // entry (24-byte id, 8-byte position), its pendingRedactions key (8).
        #expect(DiskFloor.bytesPerExpiredShare == 68 + 32 + 8)
        let floor = report.measurements.figure("sweep.n20.e20.floor")?.results
        #expect(floor.map { Set($0.keys) } == ["ShareLog"])
        #expect(floor?["ShareLog"]?.values.allSatisfy { $0.isFinite && $0 > 0 } == true)
        let preview = report.measurements.figure("preview.card100k")
        #expect(preview.map { Set($0.results.keys) } == ["ShareLog"])
        let previewValues = preview?.results["ShareLog"]?.values ?? []
        #expect(!previewValues.isEmpty && previewValues.allSatisfy { $0.isFinite && $0 > 0 }, "\(previewValues)")
        #expect(report.measurements.replayMemory.count == 3)
        #expect(try FileManager.default.contentsOfDirectory(atPath: work).isEmpty, "every store was removed")

        let decoded = try JSONDecoder().decode(BenchReport.self, from: try report.json())
        #expect(decoded.measurements.figures.count == report.measurements.figures.count)
        #expect(decoded.measurements.figure("fetch.threads1")?.results["Redis"]?.values.count == 1)
        let table = ReportTable.render(report)
        #expect(table.contains("fetch by id, 2 threads"))
        let header = table.split(separator: "\n").first.map { $0.split(separator: " ").map(String.init) }
        #expect(header == ["workload", "unit", "ShareLog", "C-LMDB", "SQLite", "Redis", "ShareLog/C", "ShareLog/SQLite", "ShareLog/Redis"])
        #expect(try SweepChart.write(report, to: directory.path) == directory.appending("sweep.gp"))
        let sweepData = try String(contentsOfFile: directory.appending("sweep.dat"), encoding: .utf8)
        #expect(sweepData.hasPrefix("# N  ShareLog(µs/share)  C-LMDB(µs/share)  SQLite(µs/share)  Redis(µs/share)\n"))

        // The C-LMDB baseline does ShareLog's work byte for byte: a store it
        // filled and swept opens in ShareLog and verifies.
        let path = directory.appending("c-lmdb")
        let deck = CardDeck(mixed: true, pool: 20)
        let (store, names) = try await context.filledLoggedStore(
            .cLMDB, at: path, deck: deck, parts: [.due(5), .live(15)],
            sweepAt: BenchTime.start + 2 * BenchTime.day)
        store.close()
        let shareLog = try ShareStore.open(at: path)
        let verification = try await shareLog.verify()
        #expect(verification.isConsistent)
        #expect(verification.events == 25)
        // Card 0 was due a day after 1_800_000_000_000 and swept; card 19
        // lives for 30 days from then.
        let recordNames = ShareLogBenchStore.recordNames(from: names)
        #expect(recordNames.count == 20)
        let first = try #require(recordNames.first), last = try #require(recordNames.last)
        let now = Timestamp(milliseconds: 1_800_000_000_000)
        #expect(try shareLog.fetch(first, at: now) == .expired(at: Timestamp(milliseconds: 1_800_086_400_000), reason: .ttl))
        // Its sweep logged the five TTL ends under the id docs/FORMAT.md
        // gives one on every replica: the record name as origin, counter 0.
        let ends = try shareLog.events(after: 0).map(\.event).filter { event in
            if case .shareExpired = event.kind { true } else { false }
        }
        #expect(Set(ends.map(\.id)) == Set(recordNames.prefix(5).map { EventID(origin: ReplicaID(uuid: $0.uuid), counter: 0) }))
        #expect(try shareLog.fetch(last, at: now) == .live(Share(
            recordName: last, vCard: deck.card(19), createdAt: now, expiresAt: Timestamp(milliseconds: 1_802_592_000_000))))
    }

    /// The sync workloads' figures: catch-up for both decks, follow latency,
    /// clip fetches at 1, 8 and 50 connections, the snapshot, the relay.
    static let syncFigures: Set<String> = {
        var ids: Set<String> = [
            "sync.follow.p50", "sync.follow.p99", "sync.follow.commit.p50", "sync.follow.commit.p99",
            "sync.follow.roundTrip.p50", "sync.follow.roundTrip.p99", "sync.snapshot", "sync.snapshot.rate", "sync.snapshot.bytes",
            "sync.follow.otherProcess.p50", "sync.follow.otherProcess.p99", "sync.follow.idleCPU.follower", "sync.follow.idleCPU.server",
        ]
        for deck in ["plain", "mixed"] {
            ids.formUnion(["", ".mbps", ".local", ".localWritten", ".socket", ".redisLoaded", ".rssAnon.receiverHalf", ".rssAnon.receiverPeak",
                           ".rssAnon.serverHalf", ".rssAnon.serverPeak"].map { "sync.catchup.\(deck)" + $0 })
        }
        for connections in [1, 8, 50] {
            ids.formUnion(["", ".p50", ".p99", ".connecting"].map { "sync.clip.c\(connections)" + $0 })
        }
        ids.formUnion([
            "sync.relay.catchup", "sync.relay.catchup.firstCommit", "sync.relay.catchup.steady", "sync.relay.catchup.cpuRelay", "sync.relay.catchup.cpuNats",
            "sync.relay.catchup.held", "sync.relay.publish", "sync.relay.catchup.direct", "sync.relay.catchup.direct.cpuServer",
            "sync.relay.catchup.direct.cpuClient", "sync.relay.catchup.vsDirect", "sync.relay.delay.held", "sync.relay.idleCPU",
            "sync.relay.catchup.natsAlone", "sync.relay.catchup.natsAlone.consumer", "sync.relay.catchup.natsAlone.vsDirect",
        ])
        for p in ["p50", "p99"] {
            ids.formUnion(["", ".published", ".direct", ".vsDirect", ".natsAlone", ".natsAlone.acknowledged", ".natsAlone.vsDirect"]
                .map { "sync.relay.delay\($0).\(p)" })
        }
        return ids
    }()

    /// Who is measured in sync figure `id`: the anchors are ShareLog's
    /// column alone, Redis's in-memory full sync Redis's alone, and the
    /// relay is ShareLog's beside ShareLog's direct sync.
    static func syncSystems(_ id: String) -> Set<String> {
        if id.hasSuffix(".local") || id.hasSuffix(".socket") || id.hasPrefix("sync.follow.roundTrip") || id.hasPrefix("sync.snapshot")
            || id.hasPrefix("sync.relay") || id.hasPrefix("sync.follow.otherProcess") || id.hasPrefix("sync.follow.idleCPU") {
            return ["ShareLog"]
        }
        return id.hasSuffix(".redisLoaded") ? ["Redis"] : ["ShareLog", "Redis"]
    }

    /// What the sync workloads moved, checked against the cards themselves.
    private func expectSyncOutcomes(_ report: BenchReport) throws {
        // The snapshot carried the 100 live cards (cards 0 to 99 of the
        // smoke run's 20-card plain pool): at least their bytes, and no more
        // than 512 bytes a share beyond them for the event's other fields,
        // the frames and the handshake (docs/SYNC.md, docs/FORMAT.md).
        let deck = CardDeck(mixed: false, pool: 20)
        let cards = Double((0..<100).map { deck.card($0).count }.reduce(0, +))
        let megabytes = try #require(report.measurements.figure("sync.snapshot.bytes")?.median(.shareLog))
        #expect(megabytes * 1e6 >= cards && megabytes * 1e6 <= cards + 100 * 512, "\(megabytes) MB for \(cards) bytes of cards")
        let table = ReportTable.render(report)
        #expect(table.contains("catch-up of a new replica, 9:1 photo mix (durable)"))
        #expect(table.contains("clip fetches by id, 50 connections"))
        #expect(try FollowChart.write(report, to: NSTemporaryDirectory()) != nil)

        // Through the relay, every round's new replica came to hold every
        // share of the source store, live with its card; and replica B
        // every share created on A, the first included.
        let configuration = report.configuration
        let relayEvents = try #require(configuration.relayEvents)
        #expect(report.measurements.figure("sync.relay.catchup.held")?.results.mapValues(\.values)
            == ["ShareLog": Array(repeating: Double(relayEvents), count: configuration.syncRounds)])
        #expect(report.measurements.figure("sync.relay.delay.held")?.results.mapValues(\.values)
            == ["ShareLog": [Double(configuration.syncFollowShares + 1)]])
        #expect(table.contains("relay: catch-up of a new replica from the JetStream stream, 1 KB cards (durable)"))
        #expect(report.machine.nats?.hasPrefix("nats-server ") == true, "\(report.machine.nats ?? "nil")")
    }

    /// The rows only Redis has, as a reader of the table would check them.
    private func expectRedisRows(_ report: BenchReport) throws {
        let figures = report.measurements
        // Every due key is gone well within the 10 s deadline at these sizes.
        for id in ["sweep.n20.e20.removed", "sweep.n60.e20.removed", "sweep.n60.e10.removed"] {
            #expect(figures.figure(id)?.results.mapValues(\.values) == ["Redis": [100]], "\(id)")
        }
        // What Redis wrote while its keys expired is one DEL per key in its
        // AOF, and nothing else: "*2\r\n$3\r\nDEL\r\n$16\r\n" and the 16-byte
        // name and "\r\n", 36 bytes (RESP, redis.io/docs/reference/protocol-spec).
        for id in ["sweep.n20.e20.written", "sweep.n60.e20.written"] {
            #expect(figures.figure(id)?.results["Redis"]?.values == [36.0 / 1024], "\(id)")
        }
        // Redis holds every card in memory: per share, the mean card of the
        // smoke run's 50 shares (cards 0 to 49 of a 20-card mixed pool), and
        // less than as much again for the key, the entry, the allocator's
        // rounding and the server's fixed overhead spread over only 50 (about
        // 1.4x here; at 5,000 shares 1.08x). Not twice: no card is held twice.
        let deck = CardDeck(mixed: true, pool: 20)
        let meanCard = Double((0..<50).map { deck.card($0).count }.reduce(0, +)) / 50
        let memory = try #require(figures.figure("memory.perShare")?.results["Redis"]?.values.first)
        #expect(memory * 1024 >= meanCard && memory * 1024 < 2 * meanCard, "\(memory) KiB per share, cards \(meanCard) bytes")
        #expect(report.machine.redis?.hasPrefix("redis-server ") == true, "\(report.machine.redis ?? "nil")")
    }
}
