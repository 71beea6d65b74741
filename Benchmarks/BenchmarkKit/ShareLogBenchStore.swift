import Dispatch
import Foundation
import LMDB
import ShareLog
import Synchronization

/// ShareLog, through its public API only: `create(vCard:ttl:)` (sync, or
/// async from tasks for group commit), `create(vCards:ttl:)`, `fetch`,
/// `sweep` and `verify`.
final class ShareLogBenchStore: LoggedBenchStore {
    let system = BenchSystem.shareLog
    private var store: ShareStore?
    /// The store's own LMDB environment (the module hands out one instance
    /// per directory), read only for its commit count.
    private var environment: Environment?
    private let clock = BenchClock()

    init(path: String, durable: Bool) throws {
        var options = ShareStore.Options()
        options.clock = clock
        options.environment.durability = durable ? .full : .noSync
        // An experiment, as CB_LMDB_WRITEMAP is for the C baseline: keeps
        // that many idle read transactions (docs/LMDB.md), so a read renews
        // one instead of taking a reader slot under LMDB's mutex. Unset, the
        // default (none), which every recorded run uses.
        if let idle = ProcessInfo.processInfo.environment["SHARELOG_BENCH_IDLE_READS"].flatMap(Int.init) {
            options.environment.idleReadTransactions = idle
        }
        store = try ShareStore.open(at: path, creatingIfMissing: true, options: options)
        environment = try Environment.open(at: path, databases: ShareStore.databaseNames, options: options.environment)
    }

    private var opened: ShareStore {
        guard let store else { preconditionFailure("the ShareLog store was closed") }
        return store
    }

    func create(
        _ deck: CardDeck, first: Int, count: Int, batch: Int, creators: Int, createdAt: Int64, ttl: Int64
    ) async throws -> Timed<[UInt8]> {
        clock.set(createdAt)
        let created = creators > 1
            ? try await createConcurrently(deck, first: first, count: count, creators: creators, ttl: .milliseconds(ttl))
            : try createSerially(deck, first: first, count: count, batch: batch, ttl: .milliseconds(ttl))
        return Timed(value: Self.bytes(of: created.value), seconds: created.seconds)
    }

    /// One create per commit, or `create(vCards:)` per batch, on this thread.
    private func createSerially(_ deck: CardDeck, first: Int, count: Int, batch: Int, ttl: Duration) throws -> Timed<[RecordName]> {
        let store = opened
        if batch <= 1 {
            var names: [RecordName] = []
            names.reserveCapacity(count)
            let stopwatch = Stopwatch()
            for k in 0..<count { names.append(try store.create(vCard: deck.card(first + k), ttl: ttl).recordName) }
            return Timed(value: names, seconds: stopwatch.seconds)
        }
        let batches = stride(from: 0, to: count, by: batch).map { start in
            (start..<min(start + batch, count)).map { deck.card(first + $0) }
        }
        var names: [RecordName] = []
        names.reserveCapacity(count)
        let stopwatch = Stopwatch()
        for cards in batches { names += try store.create(vCards: cards, ttl: ttl).map(\.recordName) }
        return Timed(value: names, seconds: stopwatch.seconds)
    }

    /// `creators` tasks, each creating its cards one at a time with the
    /// async `create`; writes that queue together share a commit.
    private func createConcurrently(
        _ deck: CardDeck, first: Int, count: Int, creators: Int, ttl: Duration
    ) async throws -> Timed<[RecordName]> {
        let store = opened
        let shares = (0..<creators).map { creator in
            stride(from: creator, to: count, by: creators).map { (index: $0, card: deck.card(first + $0)) }
        }
        let stopwatch = Stopwatch()
        let made = try await withThrowingTaskGroup(of: [(Int, RecordName)].self) { group in
            for cards in shares {
                group.addTask {
                    var made: [(Int, RecordName)] = []
                    for (index, card) in cards { made.append((index, try await store.create(vCard: card, ttl: ttl).recordName)) }
                    return made
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        let seconds = stopwatch.seconds
        return Timed(value: made.sorted { $0.0 < $1.0 }.map(\.1), seconds: seconds)
    }

    func fetch(_ names: [UInt8], threads: Int, at now: Int64) throws -> Timed<FetchTally> {
        let store = opened
        let time = Timestamp(milliseconds: now)
        let recordNames = Self.recordNames(from: names)
        let tallies = Mutex<[FetchTally]>([])
        let failure = Mutex<(any Error)?>(nil)
        let threads = max(threads, 1)
        let stopwatch = Stopwatch()
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            let range = recordNames.count * thread / threads ..< recordNames.count * (thread + 1) / threads
            var tally = FetchTally()
            do {
                for name in recordNames[range] {
                    switch try store.fetch(name, at: time) {
                    case .live(let share):
                        tally.live += 1
                        tally.bytes += share.vCard.count
                    case .expired: tally.expired += 1
                    case .notFound: tally.missing += 1
                    }
                }
            } catch {
                failure.withLock { $0 = error }
            }
            tallies.withLock { $0.append(tally) }
        }
        let seconds = stopwatch.seconds
        if let error = failure.withLock({ $0 }) { throw error }
        let total = tallies.withLock { $0.reduce(into: FetchTally()) { $0.add($1) } }
        return Timed(value: total, seconds: seconds)
    }

    func sweep(at now: Int64, batch: Int) throws -> Timed<Int> {
        let store = opened
        let stopwatch = Stopwatch()
        let report = try store.sweep(at: Timestamp(milliseconds: now), batchSize: batch)
        return Timed(value: report.expired, seconds: stopwatch.seconds)
    }

    /// `verify()`: its scratch store goes in the temporary directory, which
    /// is where the benchmark puts the baselines' `scratch` too.
    func replay(chunk: Int, scratch: String, progress: @escaping (Int) -> Void) throws -> Timed<ReplayOutcome> {
        let store = opened
        let stopwatch = Stopwatch()
        let report = try store.verify(chunkSize: chunk, progress: progress)
        let seconds = stopwatch.seconds
        return Timed(
            value: ReplayOutcome(events: report.events, entriesCompared: report.entriesCompared, consistent: report.isConsistent),
            seconds: seconds)
    }

    func commitCount() -> Int? { environment?.info.lastTransactionID }

    func close() {
        store = nil
        environment = nil
    }

    /// Record names as 16 raw bytes each, end to end.
    static func bytes(of names: [RecordName]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(names.count * 16)
        for name in names { withUnsafeBytes(of: name.uuid.uuid) { bytes.append(contentsOf: $0) } }
        return bytes
    }

    /// The record names in 16-byte runs of `bytes`.
    static func recordNames(from bytes: [UInt8]) -> [RecordName] {
        bytes.withUnsafeBytes { raw in
            (0..<raw.count / 16).map { RecordName(uuid: UUID(uuid: raw.loadUnaligned(fromByteOffset: 16 * $0, as: uuid_t.self))) }
        }
    }
}
