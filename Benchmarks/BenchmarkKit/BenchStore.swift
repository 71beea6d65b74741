import CBaseline

/// One system's store, driven the same way for every system, so a workload
/// is written once for all of them. Each call measures only its own work and
/// returns the time with the result.
///
/// Record names cross this interface as 16 raw bytes each, laid end to end
/// (`[UInt8]` of 16 × n), converted to a system's own form outside the
/// measured region. A store is used from one task at a time.
protocol BenchStore: AnyObject {
    var system: BenchSystem { get }

    /// Creates one share per card of `deck` in `first ..< first + count`,
    /// created at `createdAt` ms and expiring `ttl` ms later: `batch` shares
    /// per commit, from `creators` concurrent creators (tasks for ShareLog,
    /// threads with their own transactions or connections for the others).
    ///
    /// - Returns: the record names, in card order.
    func create(
        _ deck: CardDeck, first: Int, count: Int, batch: Int, creators: Int, createdAt: Int64, ttl: Int64
    ) async throws -> Timed<[UInt8]>

    /// Fetches every name in `names` at `now` ms, split over `threads` threads.
    func fetch(_ names: [UInt8], threads: Int, at now: Int64) throws -> Timed<FetchTally>

    /// Durable commits since the store was made, where the system can tell
    /// (LMDB's last transaction id); nil for SQLite and Redis.
    func commitCount() -> Int?

    /// Bytes the system has handed to write calls for its store so far; a
    /// difference of two readings is what some work wrote.
    func bytesWritten() throws -> Int

    /// Closes the store; the object is unusable afterwards.
    func close()
}

extension BenchStore {
    /// The embedded stores write from this process: `write_bytes` of
    /// `/proc/self/io` (`cb_write_bytes`), which counts writes through a
    /// map as well as write(2).
    func bytesWritten() throws -> Int { Int(cb_write_bytes()) }
}

/// An embedded store with a log of events (`BenchSystem.embedded`): its
/// expiry is an explicit sweep, and its log can be replayed.
protocol LoggedBenchStore: BenchStore {
    /// Expires every share due at `now` ms, `batch` per durable transaction.
    ///
    /// - Returns: how many expired.
    func sweep(at now: Int64, batch: Int) throws -> Timed<Int>

    /// Rebuilds the projections from the log and compares them with the
    /// stored ones, calling `progress` with the entries read after each
    /// chunk: ShareLog's `verify` folds in memory and ignores `scratch`; the
    /// baselines fold into a scratch store there.
    func replay(chunk: Int, scratch: String, progress: @escaping (Int) -> Void) throws -> Timed<ReplayOutcome>
}

/// A result and the wall time its work took.
struct Timed<Value> {
    let value: Value
    let seconds: Double
}

/// What a run of fetches found; equal across systems for the same names.
struct FetchTally: Equatable, Sendable {
    var live = 0
    var expired = 0
    var missing = 0
    /// vCard bytes copied out of the store.
    var bytes = 0

    mutating func add(_ other: FetchTally) {
        live += other.live
        expired += other.expired
        missing += other.missing
        bytes += other.bytes
    }
}

/// What a replay found.
struct ReplayOutcome: Equatable, Sendable {
    var events = 0
    var entriesCompared = 0
    var consistent = true
}

/// Opens `system`'s store in `path`, creating it if needed; for Redis,
/// starts a server with its data there.
///
/// - Parameter durable: every commit synced (ShareLog's `.full`, LMDB
///   without `MDB_NOSYNC`, SQLite `synchronous=FULL`, Redis `appendfsync
///   always`); false only to fill stores before a measurement.
func openStore(_ system: BenchSystem, at path: String, durable: Bool) throws -> any BenchStore {
    system == .redis ? try RedisBenchStore(path: path, durable: durable) : try openLoggedStore(system, at: path, durable: durable)
}

/// Opens an embedded system's store, as `openStore`.
///
/// - Precondition: `system` is one of `BenchSystem.embedded`.
func openLoggedStore(_ system: BenchSystem, at path: String, durable: Bool) throws -> any LoggedBenchStore {
    switch system {
    case .shareLog: try ShareLogBenchStore(path: path, durable: durable)
    case .cLMDB, .sqlite: try CBaselineStore(system, path: path, durable: durable)
    case .redis: preconditionFailure("Redis keeps no log: it is not an embedded store")
    }
}
