import Foundation
import TestSupport
import Testing
@testable import BenchmarkKit
import TestTraits

/// The Redis anchors of the sync workloads deliver what they claim to time:
/// a full sync leaves a replica holding every card, durably; a replication
/// delay ends when the replica holds the card; timed GETs find exactly the
/// keys that exist. Timings are never asserted.
@Suite(.hangDeadline, .ownThread) struct RedisReplicationTests {
    /// 9:1 mix, so that the photo cards (about 62 KB) replicate too.
    let deck = CardDeck(mixed: true, pool: 10)

    @Test func aFullSyncLeavesTheReplicaHoldingEveryCardDurably() throws {
        let directory = TemporaryDirectory()
        let replicaPath = directory.appending("replica")
        let names: [UInt8]
        do {
            let pair = try RedisReplicaPair(masterPath: directory.appending("master"), replicaPath: replicaPath)
            defer { pair.close() }
            names = try pair.fill(deck, first: 0, count: 120)
            let sync = try pair.fullSync(expectedKeys: 120, deadline: .seconds(60))

            #expect(try pair.replica.keyCount() == 120)
            for k in [0, 1, 9, 10, 119] {
                #expect(try pair.replica.value(of: Array(names[16 * k ..< 16 * k + 16])) == deck.card(k), "card \(k)")
            }
            // The RDB the replica received is the file it saved before loading
            // it (repl-diskless-load disabled), framed on the wire by
            // "$EOF:" + a 40-byte mark + "\r\n" before it and the mark after.
            let rdb = try #require(try FileManager.default.attributesOfItem(atPath: replicaPath + "/dump.rdb")[.size] as? Int)
            #expect(sync.bytes == rdb + 5 + 40 + 2 + 40)
            // Durable: the manifest names the base file of the rewrite that
            // followed the sync; the replica's first base (seq 1) was made
            // empty at its start.
            let manifest = try String(contentsOfFile: replicaPath + "/appendonlydir/appendonly.aof.manifest", encoding: .utf8)
            let base = manifest.split(separator: "\n").filter { $0.hasSuffix("type b") }
            #expect(base == ["file appendonly.aof.2.base.rdb seq 2 type b"], "\(manifest)")
        }
        try expectNoServer(under: directory)

        // A server started on the replica's files alone holds every card.
        let restarted = try RedisBenchStore(path: replicaPath, durable: true)
        defer { restarted.close() }
        #expect(try restarted.keyCount() == 120)
        for k in [0, 10, 119] {
            #expect(try restarted.value(of: Array(names[16 * k ..< 16 * k + 16])) == deck.card(k), "card \(k)")
        }
    }

    @Test func eachReplicationDelayEndsWithTheCardOnTheReplica() throws {
        let directory = TemporaryDirectory()
        do {
            let pair = try RedisReplicaPair(masterPath: directory.appending("master"), replicaPath: directory.appending("replica"))
            defer { pair.close() }
            _ = try pair.fill(deck, first: 0, count: 30)
            _ = try pair.fullSync(expectedKeys: 30, deadline: .seconds(60))

            let (names, delays) = try pair.replicationDelays(deck, first: 30, count: 20, deadline: .seconds(30))
            #expect(delays.count == 20)
            #expect(delays.allSatisfy { $0.commitSeconds > 0 && $0.delaySeconds > 0 }, "\(delays)")
            #expect(try pair.replica.keyCount() == 50)
            for k in 0..<20 {
                let name = Array(names[16 * k ..< 16 * k + 16])
                #expect(try pair.replica.value(of: name) == deck.card(30 + k), "card \(30 + k)")
            }
        }
        try expectNoServer(under: directory)
    }

    @Test func timedGetsFindExactlyTheLiveKeysInBothModes() async throws {
        let directory = TemporaryDirectory()
        do {
            let store = try RedisBenchStore(path: directory.appending("redis"), durable: false)
            defer { store.close() }
            let live = try await store.create(deck, first: 0, count: 150, batch: 50, creators: 1, createdAt: 0, ttl: RedisReplicaPair.farTTL).value
            // 30 names never written, among the live ones.
            var names: [UInt8] = []
            for k in 0..<150 {
                names += live[16 * k ..< 16 * k + 16]
                if k % 5 == 0 { names += (0..<16).map { _ in UInt8.random(in: 0...255) } }
            }
            let liveBytes = (0..<150).reduce(0) { $0 + deck.card($1).count }
            for threads in [1, 8, 50] {
                for connectionPerFetch in [false, true] {
                    let run = try store.fetchLatencies(names, threads: threads, connectionPerFetch: connectionPerFetch)
                    let mode = "\(threads) threads, connection per fetch: \(connectionPerFetch)"
                    #expect(run.tally == FetchTally(live: 150, expired: 0, missing: 30, bytes: liveBytes), "\(mode)")
                    #expect(run.latencies.count == 180, "\(mode)")
                    #expect(run.latencies.allSatisfy { $0 > 0 }, "\(mode)")
                }
            }
        }
        try expectNoServer(under: directory)
    }

    /// Every redis-server started under `directory` has stopped.
    private func expectNoServer(under directory: TemporaryDirectory) throws {
        try Deadline.block(until: "every redis-server under \(directory.path) has stopped", every: .milliseconds(20)) {
            RedisProcesses.running(under: directory.path).isEmpty
        }
    }
}
