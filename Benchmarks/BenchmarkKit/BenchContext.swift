import CBaseline
import Foundation

/// Where the benchmark's processes are.
public struct Executables: Sendable {
    /// `sharelog-bench`, the far side of the sync, relay and HTTP workloads.
    public let bench: String
    /// `sharelog-cold`, for ShareLog's cold start, as `swift build` links
    /// it by default: the Swift runtime and Foundation as shared libraries.
    public let cold: String
    /// A `sharelog-cold` built with `--static-swift-stdlib`, if there is
    /// one: the cold start is then measured both ways.
    public let staticCold: String?
    /// `sharelog-cold-c`, for the baselines' cold start.
    public let coldC: String

    public init(bench: String, cold: String, staticCold: String?, coldC: String) {
        self.bench = bench
        self.cold = cold
        self.staticCold = staticCold
        self.coldC = coldC
    }

    /// `sharelog-bench`, `sharelog-cold` and `sharelog-cold-c` next to the
    /// running executable (or test bundle) in the build directory, with
    /// `staticCold`.
    public static func besideThisProcess(staticCold: String? = nil) -> Executables {
        let directory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        return Executables(
            bench: directory.appendingPathComponent("sharelog-bench").path,
            cold: directory.appendingPathComponent("sharelog-cold").path, staticCold: staticCold,
            coldC: directory.appendingPathComponent("sharelog-cold-c").path)
    }
}

/// Times every workload uses, in milliseconds since 1970.
enum BenchTime {
    /// When every benchmark share is created.
    static let start: Int64 = 1_800_000_000_000
    static let hour: Int64 = 3_600_000
    static let day: Int64 = 86_400_000
}

/// What the workloads of one run share: sizes, directories, processes, and
/// the steps that make a filled store ready to measure.
public final class BenchContext: Sendable {
    public let configuration: BenchConfiguration
    /// Stores are made here, each in its own directory, and removed after use.
    public let workDirectory: String
    public let executables: Executables
    private let log: @Sendable (String) -> Void
    private let started = ContinuousClock.now

    public init(
        configuration: BenchConfiguration, workDirectory: String, executables: Executables,
        log: @escaping @Sendable (String) -> Void
    ) {
        self.configuration = configuration
        self.workDirectory = workDirectory
        self.executables = executables
        self.log = log
    }

    /// Reports progress, stamped with the seconds since the run began.
    func progress(_ message: String) {
        let elapsed = (ContinuousClock.now - started).components.seconds
        log(String(format: "[%4ds] ", elapsed) + message)
    }

    /// A fresh directory path for `system`'s store called `label`.
    func storePath(_ label: String, _ system: BenchSystem) -> String {
        (workDirectory as NSString).appendingPathComponent("\(label)-\(system.rawValue)")
    }

    /// A path in the temporary directory for a baseline replay's scratch
    /// store.
    func scratchPath() -> String {
        (NSTemporaryDirectory() as NSString).appendingPathComponent("sharelog-bench-scratch-\(UUID().uuidString)")
    }

    /// Deletes a store directory.
    func remove(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Makes a store of an embedded `system` at `path` holding `parts`
    /// (created at `BenchTime.start` in batches of 1,000 without syncing),
    /// optionally swept at `sweepAt`; then closes it, fsyncs its files, and
    /// reopens it durable, so that no write-back of the fill lands in a
    /// measurement.
    ///
    /// - Precondition: `system` is one of `BenchSystem.embedded`.
    /// - Returns: the durable store and the record names, in card order.
    func filledLoggedStore(
        _ system: BenchSystem, at path: String, deck: CardDeck, parts: [FillPart], sweepAt: Int64? = nil
    ) async throws -> (store: any LoggedBenchStore, names: [UInt8]) {
        remove(path)
        let filling = try openLoggedStore(system, at: path, durable: false)
        let names = try await fill(filling, deck: deck, parts: parts)
        if let sweepAt { _ = try filling.sweep(at: sweepAt, batch: 1000) }
        filling.close()
        let rc = cb_fsync_directory(path)
        if rc != 0 { throw BenchError.baseline(system, "fsync of \(path) failed: \(String(cString: strerror(rc)))") }
        return (try openLoggedStore(system, at: path, durable: true), names)
    }

    /// Starts a Redis server with its data at `path` and fills it as
    /// `filledLoggedStore` fills a store (with `appendfsync no`); then
    /// fsyncs its AOF and sets `appendfsync always`. Redis keys expire by
    /// Redis's own clock: `parts` must not fall due during the run.
    ///
    /// - Returns: the durable server and the record names, in card order.
    func filledRedis(at path: String, deck: CardDeck, parts: [FillPart]) async throws -> (store: RedisBenchStore, names: [UInt8]) {
        remove(path)
        let redis = try RedisBenchStore(path: path, durable: false)
        let names = try await fill(redis, deck: deck, parts: parts)
        try redis.makeDurable()
        return (redis, names)
    }

    /// Creates `parts` in `store`, from card 0 on, in batches of 1,000.
    private func fill(_ store: any BenchStore, deck: CardDeck, parts: [FillPart]) async throws -> [UInt8] {
        var names: [UInt8] = []
        var first = 0
        for part in parts where part.count > 0 {
            names += try await store.create(
                deck, first: first, count: part.count, batch: 1000, creators: 1, createdAt: BenchTime.start, ttl: part.ttl
            ).value
            first += part.count
        }
        return names
    }
}

/// Shares of a fill that expire together.
struct FillPart {
    let count: Int
    /// Time to live in milliseconds.
    let ttl: Int64

    /// Due at a sweep two days after creation.
    static func due(_ count: Int) -> FillPart { FillPart(count: count, ttl: BenchTime.day) }
    /// Live for the whole run.
    static func live(_ count: Int) -> FillPart { FillPart(count: count, ttl: 30 * BenchTime.day) }
}
