import Foundation
import Glibc
import ShareLog
import TestSupport

/// The crash harness's parent: runs writer children on a store, kills them
/// with SIGKILL at random moments, reopens the store and checks it against
/// everything the writers acknowledged, then starts new writers on the same
/// store, until the kills are done.
///
/// A round starts `W` writers (one per slot), waits until they are ready
/// (or, one round in ten, kills the first during its start-up), then kills
/// them one by one in random order, each after a random delay of up to
/// `maxDelayMilliseconds` while the others go on writing. With all writers
/// dead it reopens the store and checks the workload's invariants, `verify`,
/// and that the store accepts a write. Every wait is bounded. Every process
/// opens the store with `CrashStore`'s small map, and the runner reads the
/// committed map size before and after each round to count the rounds in
/// which the writers grew it.
public struct CrashRunner<Workload: CrashWorkload> {
    public let workload: Workload
    public let options: CrashRunOptions
    /// The `sharelog-crash` executable, run with `writer` for each child.
    public let executable: URL

    /// 2030-01-01T00:00:00Z: the writers' clocks start here.
    public static var baseTime: Int64 { 1_893_456_000_000 }

    public init(workload: Workload, options: CrashRunOptions, executable: URL) {
        self.workload = workload
        self.options = options
        self.executable = executable
    }

    /// Runs every kill, calling `progress` after each store.
    ///
    /// - Returns: the numbers, with the violations of the first store that
    ///   broke an invariant (the run stops there and keeps that store), or
    ///   the failure of a run that acknowledged nothing (`CrashReport.judge`).
    public func run(progress: (CrashReport) -> Void = { _ in }) throws -> CrashReport {
        let started = ContinuousClock.now
        let root = options.directory ?? (NSTemporaryDirectory() as NSString)
            .appendingPathComponent("sharelog-crash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        var report = CrashReport(workload: workload.name, seed: options.seed, writers: options.writers)
        report.initialMapBytes = CrashStore.initialMapBytes
        while report.kills < options.kills, report.violations.isEmpty {
            let index = report.stores
            let path = (root as NSString).appendingPathComponent("store-\(index)")
            try runStore(at: path, index: index, writers: options.writers[index % options.writers.count],
                         kills: min(options.killsPerStore, options.kills - report.kills), into: &report)
            report.stores += 1
            report.seconds = (ContinuousClock.now - started).seconds
            progress(report)
        }
        report.judge()
        if report.failedStore == nil && !options.keep { try? FileManager.default.removeItem(atPath: root) }
        return report
    }

    private func runStore(at path: String, index: Int, writers: Int, kills: Int, into report: inout CrashReport) throws {
        // The parent makes the store: LMDB writes a new file's first pages
        // without a commit protocol, so a kill there is outside its promise.
        // Writers then open an existing store, as they do in production.
        let clock = FixedClock(Timestamp(milliseconds: Self.baseTime))
        _ = try ShareStore.open(at: path, creatingIfMissing: true, options: CrashStore.options(clock: clock))
        var history = CrashHistory()
        var random = SeededGenerator(seed: options.seed, index)
        var killed = 0
        var lastCheck = CrashCheck()
        while killed < kills {
            let count = min(writers, kills - killed)
            let mapBefore = try CrashStore.committedMapBytes(at: path)
            do {
                try runRound(on: path, store: index, writers: count, history: &history, random: &random)
            } catch let violation as CrashViolation {
                lastCheck.violations.append(violation)
            } catch let timeout as DeadlineExceeded {
                lastCheck.violations.append(CrashViolation(timeout.description))
            }
            killed += count
            report.kills += count
            let mapAfter = try CrashStore.committedMapBytes(at: path)
            if mapAfter > mapBefore { report.mapGrowthRounds += 1 }
            report.largestMapBytes = max(report.largestMapBytes, mapAfter)
            if lastCheck.violations.isEmpty { lastCheck = check(path, round: report.checks, history: &history) }
            report.checks += 1
            report.operationsChecked += lastCheck.operationsChecked
            if !lastCheck.violations.isEmpty {
                report.violations = lastCheck.violations.map(\.description)
                report.failedStore = path
                break
            }
        }
        report.acknowledged += history.acknowledged.filter { $0.operation.slot != CrashOperation.probeSlot }.count
        report.inDoubt += history.inDoubt.count
        report.inDoubtApplied += lastCheck.inDoubtApplied
        report.events += lastCheck.events
    }

    /// Starts `count` writers and kills each of them once.
    private func runRound(on path: String, store: Int, writers count: Int,
                          history: inout CrashHistory, random: inout SeededGenerator) throws {
        let writers = try (0..<count).map { slot in
            let first = history.nextNumber(slot: slot)
            let time = history.lastTime(slot: slot).map { $0 + workload.timeStep } ?? Self.baseTime
            return try WriterProcess(executable: executable, arguments: [
                "writer", "--workload", workload.name, "--store", path, "--slot", "\(slot)",
                "--seed", "\(options.seed ^ UInt64(store))", "--first", "\(first)", "--time", "\(time)",
            ], slot: slot)
        }
        var pump = WriterPump(writers: writers)
        defer { pump.killAll() }
        let killDuringStart = Int.random(in: 0..<10, using: &random) == 0
        if !killDuringStart {
            try pump.waitUntilReady(timeout: options.startTimeout, history: &history)
        }
        for (position, slot) in (0..<count).shuffled(using: &random).enumerated() {
            let longest = killDuringStart && position == 0 ? 20 : options.maxDelayMilliseconds
            let delay = Duration.milliseconds(Int.random(in: 0...longest, using: &random))
            try pump.pump(for: delay, history: &history)
            try pump.kill(slot: slot, history: &history)
        }
    }

    /// Reopens the quiescent store through a new handle and checks it.
    private func check(_ path: String, round: Int, history: inout CrashHistory) -> CrashCheck {
        let time = (history.latestTime ?? Self.baseTime) + workload.timeStep
        do {
            // The handle is released when this scope ends, before new writers start.
            let clock = FixedClock(Timestamp(milliseconds: time))
            let store = try ShareStore.open(at: path, options: CrashStore.options(clock: clock))
            let check = try workload.checkAll(history, in: store)
            if check.violations.isEmpty { history.recordProbe(try workload.probe(number: round, time: time, on: store)) }
            return check
        } catch {
            var check = CrashCheck()
            check.fail("reopening and checking the store failed: \(error)")
            return check
        }
    }
}
