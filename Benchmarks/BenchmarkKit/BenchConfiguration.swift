import LMDB

/// The sizes and repetitions of one benchmark run.
///
/// `full` is the run BENCHMARKS.md records; `quick` keeps every workload at
/// sizes that finish in under two minutes on the 2-core machine; `smoke` is
/// for the test that keeps the code from rotting.
public struct BenchConfiguration: Codable, Sendable {
    public var mode: String
    /// Rounds of the create and fetch measurements; the figures are the
    /// medians. Systems run in a rotated order each round.
    public var rounds: Int
    /// Slices of each create and fetch round: the systems take turns slice
    /// by slice (rotated), so a burst of load from other users of the
    /// machine lands on all of them; a round's figure is its total work over
    /// its total time.
    public var slices: Int
    /// Distinct cards in each deck (a multiple of 10).
    public var cardPool: Int

    /// Shares created one per commit, per system and round.
    public var createOnePerCommit: Int
    /// Shares created by the concurrent creators, per system and round.
    public var createConcurrent: Int
    public var concurrentCreators: Int
    /// ShareLog's `commitDelay` in the group-commit rows (the concurrent
    /// creators and the lone writer with the delay): the library's default.
    public var commitDelayMicroseconds: Int
    /// Shares created in batches, per system and round.
    public var createBatched: Int
    public var batchSize: Int

    /// Shares (9:1 mix) in the store that fetch and the clip's cold start read.
    public var readStoreShares: Int
    /// Fetches per measurement.
    public var fetches: Int
    /// The share of fetched ids that do not exist.
    public var missingFraction: Double
    /// Thread counts of the fetch measurements.
    public var fetchThreads: [Int]
    /// Fresh processes per system for the cold start.
    public var coldStarts: Int

    /// E, the due shares, while N grows over `sweepTotals`.
    public var sweepDue: Int
    public var sweepTotals: [Int]
    /// N while E grows over `sweepGrowingDue`.
    public var sweepFixedTotal: Int
    public var sweepGrowingDue: [Int]
    public var sweepBatch: Int
    /// Rounds of the sweep (each fills fresh stores).
    public var sweepRounds: Int
    /// Bytes written and synced once per sweep round to measure the disk's
    /// sequential durable bandwidth, for the sweep's floor (`DiskFloor`).
    public var diskFloorBytes: Int
    /// Seconds a sweep point waits, from the moment Redis's keys fall due,
    /// for its active expiry to remove them all.
    public var redisExpiryDeadline: Int

    /// Events in the replayed log: shares created, then a tenth of them swept.
    public var replayEvents: Int
    /// Rounds of the replay (it reads the same store each round).
    public var replayRounds: Int
    public var replayChunk: Int

    /// Rounds of the catch-up, clip and snapshot measurements.
    public var syncRounds: Int
    /// Events a new replica catches up on, per deck.
    public var syncEvents: Int
    /// Shares created on main one at a time for the follow latency.
    public var syncFollowShares: Int
    /// Shares (9:1 mix) the clip fetches' server holds.
    public var syncClipShares: Int
    /// Fetches per measurement of the clip fetches.
    public var syncClipFetches: Int
    /// Concurrent clip connections, one measurement each.
    public var syncClipConnections: [Int]
    /// Live shares in the snapshot a new replica bootstraps from.
    public var syncSnapshotShares: Int
    /// Creations the relay workload's source store publishes through
    /// JetStream and a new replica applies; its delay measurement creates
    /// `syncFollowShares`, in `syncRounds` rounds. Nil in the results of
    /// runs from before the relay workload.
    public var relayEvents: Int?
    /// The HTTP workload's sizes (`HTTPWorkload`); nil: it is skipped (the
    /// smoke configuration, and runs from before it).
    public var http: HTTPBenchConfiguration? = nil
    /// The upload workload's sizes (`UploadWorkload`); nil: it is skipped
    /// (the smoke configuration, and runs from before it).
    public var upload: UploadBenchConfiguration? = nil
    /// Seconds the follow workload leaves its follower and server idle to
    /// sample their CPU time. Nil in the results of runs from before it.
    public var followIdleSeconds: Int? = nil

    /// `Environment.Options().commitDelay` in whole microseconds.
    public static let defaultCommitDelay: Int = {
        let (seconds, attoseconds) = Environment.Options().commitDelay.components
        return Int(seconds) * 1_000_000 + Int(attoseconds / 1_000_000_000_000)
    }()

    public static let full = BenchConfiguration(
        mode: "full", rounds: 5, slices: 10, cardPool: 1000,
        createOnePerCommit: 1000, createConcurrent: 2000, concurrentCreators: 8,
        commitDelayMicroseconds: BenchConfiguration.defaultCommitDelay, createBatched: 20_000, batchSize: 1000,
        readStoreShares: 100_000, fetches: 300_000, missingFraction: 0.1, fetchThreads: [1, 2], coldStarts: 30,
        sweepDue: 10_000, sweepTotals: [10_000, 100_000, 1_000_000],
        sweepFixedTotal: 100_000, sweepGrowingDue: [1_000, 10_000, 100_000], sweepBatch: 1000, sweepRounds: 3,
        diskFloorBytes: 256 << 20, redisExpiryDeadline: 20, replayEvents: 1_000_000, replayRounds: 3, replayChunk: 10_000,
        syncRounds: 3, syncEvents: 100_000, syncFollowShares: 1000, syncClipShares: 100_000, syncClipFetches: 20_000,
        syncClipConnections: [1, 8, 50], syncSnapshotShares: 100_000, relayEvents: 20_000, http: .full, upload: .full,
        followIdleSeconds: 10)

    public static let quick = BenchConfiguration(
        mode: "quick", rounds: 3, slices: 10, cardPool: 1000,
        createOnePerCommit: 150, createConcurrent: 320, concurrentCreators: 8,
        commitDelayMicroseconds: BenchConfiguration.defaultCommitDelay, createBatched: 5000, batchSize: 1000,
        readStoreShares: 10_000, fetches: 100_000, missingFraction: 0.1, fetchThreads: [1, 2], coldStarts: 10,
        sweepDue: 1000, sweepTotals: [1000, 10_000, 40_000],
        sweepFixedTotal: 10_000, sweepGrowingDue: [100, 1000, 10_000], sweepBatch: 1000, sweepRounds: 2,
        diskFloorBytes: 32 << 20, redisExpiryDeadline: 5, replayEvents: 40_000, replayRounds: 2, replayChunk: 10_000,
        syncRounds: 2, syncEvents: 10_000, syncFollowShares: 200, syncClipShares: 10_000, syncClipFetches: 3000,
        syncClipConnections: [1, 8, 50], syncSnapshotShares: 10_000, relayEvents: 5000, http: .quick, upload: .quick,
        followIdleSeconds: 10)

    public static let smoke = BenchConfiguration(
        mode: "smoke", rounds: 1, slices: 2, cardPool: 20,
        createOnePerCommit: 10, createConcurrent: 16, concurrentCreators: 8,
        commitDelayMicroseconds: BenchConfiguration.defaultCommitDelay, createBatched: 30, batchSize: 10,
        readStoreShares: 50, fetches: 100, missingFraction: 0.1, fetchThreads: [1, 2], coldStarts: 1,
        sweepDue: 20, sweepTotals: [20, 60],
        sweepFixedTotal: 60, sweepGrowingDue: [10, 20], sweepBatch: 8, sweepRounds: 1,
        diskFloorBytes: 1 << 20, redisExpiryDeadline: 10, replayEvents: 100, replayRounds: 1, replayChunk: 16,
        syncRounds: 1, syncEvents: 200, syncFollowShares: 20, syncClipShares: 100, syncClipFetches: 100,
        syncClipConnections: [1, 8, 50], syncSnapshotShares: 100, relayEvents: 200, followIdleSeconds: 1)
}
