import Foundation
import ShareLog
import TestSupport

/// One pair of main stores under the sync crash run, with its processes:
/// `sharelog serve` on A, one-shot `sharelog sync --both` sessions on B,
/// a writer on each side (slot 0 on A, slot 1 on B), and clip fetches
/// from A into a clip store. `round` runs one kill; `converge` and `check`
/// follow it. Not thread-safe: the runner's thread drives everything.
final class SyncPair {
    /// Writer slots: the side each writes on.
    static let slotA = 0, slotB = 1
    /// Every `sharelog` command's `--now`: a day after the writers' clocks
    /// start (`CrashRunner.baseTime`), inside every share's 7-day TTL.
    static let now = "2030-01-02T00:00:00Z"
    static var nowTime: Timestamp { Timestamp(milliseconds: CrashRunner<SyncWorkload>.baseTime + 86_400_000) }

    let directory: String
    let pathA: String, pathB: String
    let index: Int
    private let options: SyncCrashOptions
    /// The `sharelog-crash` executable, run with `writer` for each writer.
    private let executable: URL
    private let workload = SyncWorkload()
    let server: SyncServer
    let sessions: SyncSessions
    let clips: ClipFetch
    private var writers: [Int: WriterPump] = [:]
    private(set) var history = CrashHistory()
    private var cursors = SyncCursorWatch()
    private var random: SeededGenerator
    /// In-doubt creates found committed, and each side's log entries, at the last check.
    private(set) var inDoubtCreatesApplied = 0
    private(set) var events: [String: Int] = [:]

    /// Makes the stores (here, as `CrashRunner` does: a kill inside LMDB's
    /// first pages of a new file is outside its promise) and starts the server.
    init(index: Int, in root: String, options: SyncCrashOptions, executable: URL, sharelog: URL) throws {
        self.index = index
        self.options = options
        self.executable = executable
        directory = (root as NSString).appendingPathComponent("pair-\(index)")
        pathA = (directory as NSString).appendingPathComponent("A")
        pathB = (directory as NSString).appendingPathComponent("B")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for path in [pathA, pathB] { _ = try Self.open(path, creating: true) }
        random = SeededGenerator(seed: options.seed, index)
        server = SyncServer(SharelogCommand(executable: sharelog, store: pathA, now: Self.now),
                            socket: (directory as NSString).appendingPathComponent("s.sock"))
        sessions = SyncSessions(SharelogCommand(executable: sharelog, store: pathB, now: Self.now), server: server)
        clips = ClipFetch(SharelogCommand(executable: sharelog, store: (directory as NSString).appendingPathComponent("clip"),
                                          now: Self.now), server: server)
        try server.start()
    }

    /// Opens a side through the runner's own handle, at `nowTime`.
    static func open(_ path: String, creating: Bool = false) throws -> ShareStore {
        try ShareStore.open(at: path, creatingIfMissing: creating, options: CrashStore.options(clock: FixedClock(nowTime)))
    }

    /// Runs the pair, kills one victim, resumes it, runs on, then stops
    /// the writers and the sessions.
    ///
    /// - Returns: the victim, and for a client, whether the session running
    ///   at the kill point had ended by itself (a new one was killed instead).
    func round(into report: inout SyncCrashReport) throws -> (SyncVictim, endedFirst: Bool) {
        // Shares acknowledged in earlier rounds: the pair converged since,
        // and their writers are gone, so A must serve each as the history says.
        let model = SyncModel(history)
        let targets = model.creations.values.sorted { ($0.operation.slot, $0.operation.number) < ($1.operation.slot, $1.operation.number) }
            .map { ClipFetch.Expectation($0, in: model) }
        for slot in [Self.slotA, Self.slotB] { try startWriter(slot) }
        try run(for: delay(), clipTargets: targets)
        let victim = SyncVictim.allCases.randomElement(using: &random) ?? .server
        var endedFirst = false
        switch victim {
        case .server:
            try server.kill()
            try server.start()
        case .client:
            endedFirst = try sessions.kill(afterAtMost: 20_000, using: &random)
        case .writerA, .writerB:
            let slot = victim == .writerA ? Self.slotA : Self.slotB
            try writers[slot]?.kill(slot: slot, history: &history)
            try startWriter(slot)
        }
        try run(for: delay(), clipTargets: targets)
        for slot in writers.keys.sorted() {
            try writers[slot]?.kill(slot: slot, history: &history)
            report.writerStops += 1
        }
        writers = [:]
        try clips.finish()
        try sessions.stop()
        return (victim, endedFirst)
    }

    /// Writes one share through the runner's own handle on side A or B in
    /// turn: each side still accepts writes, and the share joins the history.
    func probe(number: Int) throws {
        let time = (history.latestTime ?? CrashRunner<SyncWorkload>.baseTime) + workload.timeStep
        let store = try Self.open(number % 2 == 0 ? pathA : pathB)
        history.recordProbe(try workload.probe(number: number, time: time, on: store))
    }

    /// Each side's cursor of the other, checked as it is now (after a kill,
    /// before the pair converges, the cursors have the most to get wrong).
    func checkCursors() throws -> [CrashViolation] {
        let (a, b) = try states()
        return cursors.check(b, of: a, labels: ("B", "A")) + cursors.check(a, of: b, labels: ("A", "B"))
    }

    /// Runs `sync --both` sessions until A and B hold the same events.
    ///
    /// - Returns: how many sessions that took.
    /// - Throws: `CrashViolation` for a session that fails, or for a pair
    ///   still apart after 10 sessions or `convergeTimeout`.
    func converge() throws -> Int {
        let deadline = Deadline("A and B hold the same events", timeout: options.convergeTimeout)
        for count in 1...10 {
            let outcome = try sessions.command.run(sessions.arguments, timeout: options.convergeTimeout)
            guard !outcome.signaled, outcome.status == 0 else {
                throw CrashViolation("the converging sync --both session \(count) ended with status \(outcome.status): "
                    + String(decoding: outcome.error, as: UTF8.self))
            }
            server.pump()
            let (a, b) = try states()
            if a.missing(from: b).isEmpty && b.missing(from: a).isEmpty { return count }
            if deadline.hasPassed { break }
        }
        let (a, b) = try states()
        throw CrashViolation("A and B still differ after the converging sessions: " + Self.difference(a, b).joined(separator: "; "))
    }

    /// The checks after convergence: each side against the whole history
    /// (`SyncAudit`, `verify`), the two sides against each other, the
    /// cursors, and a clip fetch from A of a share acknowledged on B.
    func check(into report: inout SyncCrashReport) throws -> [CrashViolation] {
        let model = SyncModel(history)
        var violations: [CrashViolation] = []
        for (label, path) in [("A", pathA), ("B", pathB)] {
            let store = try Self.open(path)
            var audit = SyncAudit(model: model, store: store, label: label, at: Self.nowTime)
            let outcome = try audit.run()
            var invariants = CrashCheck()
            try StoreInvariants.check(store, into: &invariants)
            violations += outcome.check.violations + invariants.violations.map { CrashViolation("\(label): \($0)") }
            report.operationsChecked += outcome.check.operationsChecked
            inDoubtCreatesApplied = outcome.check.inDoubtApplied
            events[label] = outcome.check.events
        }
        let (a, b) = try states()
        violations += Self.difference(a, b).map { CrashViolation($0) }
        violations += cursors.check(b, of: a, labels: ("B", "A")) + cursors.check(a, of: b, labels: ("A", "B"))
        let fromB = model.creations.values.filter { $0.operation.slot == Self.slotB }
            .sorted { $0.operation.number < $1.operation.number }
        if violations.isEmpty, let target = fromB.last {
            try clips.start(ClipFetch.Expectation(target, in: model))
            try clips.finish()
        }
        return violations
    }

    /// Stops the server and any process left.
    func stop() throws {
        for slot in writers.keys.sorted() { try writers[slot]?.kill(slot: slot, history: &history) }
        writers = [:]
        try server.kill()
    }

    private func states() throws -> (SyncStoreState, SyncStoreState) {
        let storeA = try Self.open(pathA), storeB = try Self.open(pathB)
        return (try SyncStoreState(storeA, peer: storeB.replicaID), try SyncStoreState(storeB, peer: storeA.replicaID))
    }

    /// The events one side holds and the other lacks, in words; empty when
    /// they hold the same.
    static func difference(_ a: SyncStoreState, _ b: SyncStoreState) -> [String] {
        [("A", "B", a.missing(from: b)), ("B", "A", b.missing(from: a))].compactMap { holder, other, missing in
            missing.first.map { "\(holder) holds \(missing.count) events \(other) lacks, such as \($0)" }
        }
    }

    /// A writer incarnation on `slot`'s side, started and ready; its
    /// operation numbers and clock go on from the slot's last.
    private func startWriter(_ slot: Int) throws {
        let time = history.lastTime(slot: slot).map { $0 + workload.timeStep } ?? CrashRunner<SyncWorkload>.baseTime
        let process = try WriterProcess(executable: executable, arguments: [
            "writer", "--workload", workload.name, "--store", slot == Self.slotA ? pathA : pathB, "--slot", "\(slot)",
            "--seed", "\(options.seed ^ UInt64(index))", "--first", "\(history.nextNumber(slot: slot))", "--time", "\(time)",
        ], slot: slot)
        var pump = WriterPump(writers: [process])
        writers[slot] = pump
        try pump.waitUntilReady(timeout: options.startTimeout, history: &history)
        writers[slot] = pump
    }

    private func delay() -> Duration { .milliseconds(Int.random(in: 0...options.maxDelayMilliseconds, using: &random)) }

    /// Lets the pair run for `duration`: feeds the writers' lines to the
    /// history, starts a new sync session whenever one ends, and keeps a
    /// clip fetch of one of `clipTargets` going.
    private func run(for duration: Duration, clipTargets: [ClipFetch.Expectation]) throws {
        let end = ContinuousClock.now + duration
        repeat {
            for slot in writers.keys.sorted() { try writers[slot]?.pump(for: .milliseconds(5), history: &history) }
            server.pump()
            try sessions.service()
            try clips.service()
            if !clips.isRunning, let target = clipTargets.randomElement(using: &random) { try clips.start(target) }
        } while ContinuousClock.now < end
    }
}
