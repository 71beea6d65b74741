import Foundation
import ShareLog
import TestSupport

/// The sync crash run (docs/RELIABILITY.md "Crash injection on a sync
/// pair"): two main stores, A serving on a Unix socket and B syncing with
/// one-shot `sync --both` sessions, a writer on each side and clip fetches
/// from A. Each round SIGKILLs one victim at random (`SyncVictim`), restarts
/// it, lets the pair run on, stops the writers, makes the pair converge and
/// checks it (`SyncPair`): every acknowledged operation of either side is on
/// both with its card, nothing is there twice, `verify` passes on both, the
/// cursors never point past what was applied nor move back, and the clip's
/// answers are right. The expected values come from the writers' ack lines.
public struct SyncCrashRunner {
    /// What a planted fault gets: the round, the pair's stores, and the
    /// history so far.
    struct Plant {
        let round: Int
        let pathA: String
        let pathB: String
        let history: CrashHistory
    }

    public let options: SyncCrashOptions
    /// The `sharelog-crash` executable, run with `writer` for each writer.
    public let executable: URL
    /// The `sharelog` executable: server, sessions, clip.
    public let sharelog: URL
    /// A test's hook: called after each round's convergence, before its
    /// checks, to plant a fault the checks must catch.
    var plant: ((Plant) throws -> Void)?

    public init(options: SyncCrashOptions, executable: URL, sharelog: URL) {
        self.options = options
        self.executable = executable
        self.sharelog = sharelog
    }

    /// Runs every kill, calling `progress` after each round.
    ///
    /// - Returns: the numbers, with the violations of the first round that
    ///   broke an invariant (the run stops there and keeps that pair).
    public func run(progress: (SyncCrashReport) -> Void = { _ in }) throws -> SyncCrashReport {
        let started = ContinuousClock.now
        let root = options.directory ?? (NSTemporaryDirectory() as NSString)
            .appendingPathComponent("sharelog-sync-crash-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        var report = SyncCrashReport(seed: options.seed)
        while report.kills < options.kills, report.violations.isEmpty {
            let pair = try SyncPair(index: report.pairs, in: root, options: options, executable: executable, sharelog: sharelog)
            report.pairs += 1
            var round = 0
            while round < options.roundsPerPair, report.kills < options.kills, report.violations.isEmpty {
                let violations: [CrashViolation]
                do {
                    violations = try runRound(round, of: pair, into: &report)
                } catch let violation as CrashViolation {
                    violations = [violation]
                } catch let timeout as DeadlineExceeded {
                    violations = [CrashViolation(timeout.description)]
                }
                if !violations.isEmpty {
                    report.violations = violations.map(\.description)
                    report.failedPair = pair.directory
                }
                round += 1
                report.seconds = (ContinuousClock.now - started).seconds
                progress(report)
            }
            try? pair.stop()
            let acknowledged = pair.history.acknowledged
            report.acknowledgedOnA += acknowledged.filter { $0.operation.slot == SyncPair.slotA }.count
            report.acknowledgedOnB += acknowledged.filter { $0.operation.slot == SyncPair.slotB }.count
            report.probes += acknowledged.filter { $0.operation.slot == CrashOperation.probeSlot }.count
            report.inDoubt += pair.history.inDoubt.count
            report.inDoubtCreatesApplied += pair.inDoubtCreatesApplied
            report.events += pair.events.values.reduce(0, +)
            report.sessionsEndedWell += pair.sessions.endedWell
            report.sessionsFailedWithServer += pair.sessions.failedWithServer
            report.clipFetchesChecked += pair.clips.checked
            report.clipFetchesFailedWithServer += pair.clips.failedWithServer
        }
        report.judge()
        report.seconds = (ContinuousClock.now - started).seconds
        if report.passed && !options.keep { try? FileManager.default.removeItem(atPath: root) }
        return report
    }

    /// One kill, then the probe write, the cursors as the kill left them,
    /// convergence, the planted fault if any, and the checks.
    private func runRound(_ round: Int, of pair: SyncPair, into report: inout SyncCrashReport) throws -> [CrashViolation] {
        let (victim, endedFirst) = try pair.round(into: &report)
        report.kills += 1
        report.killsByVictim[victim.rawValue, default: 0] += 1
        if endedFirst { report.clientSessionsEndedFirst += 1 }
        report.rounds += 1
        try pair.probe(number: round)
        let cursors = try pair.checkCursors()
        guard cursors.isEmpty else { return cursors }
        let sessions = try pair.converge()
        report.convergingSessions += sessions
        report.mostConvergingSessions = max(report.mostConvergingSessions, sessions)
        try plant?(Plant(round: round, pathA: pair.pathA, pathB: pair.pathB, history: pair.history))
        return try pair.check(into: &report)
    }
}
