import Foundation
import Glibc
import ShareLog
import TestSupport

/// Kills `sharelog upgrade` with SIGKILL at random moments of its run on
/// copies of one large format-1 store, and checks every copy afterwards:
/// an upgrade must leave format 1 or format 3, never a mix, and either way
/// the store must reopen (upgrading if still format 1) with the log byte
/// for byte as it was and every share answering as planned.
///
/// The store is a `Format1Store` written by `Format1StoreWriter`, a few
/// thousand shares so that the upgrade takes long enough for kills to land
/// inside its transaction (the committed fixture's takes well under a
/// millisecond). First one copy is upgraded without a kill, which checks
/// the writer against its plan and times the child's run; then each kill
/// starts the child on a fresh copy and sends SIGKILL after a seeded delay
/// from 0 to 5/4 of the shortest run seen so far. Before reopening, lmdb-utils say where the
/// kill landed (`UpgradeAudit.Seen`); then `UpgradeAudit.check` reopens
/// and checks the copy. Every wait is bounded.
public struct UpgradeCrashRunner {
    public let options: UpgradeCrashOptions
    /// The `sharelog` executable, run as `sharelog upgrade --json`.
    public let sharelog: URL

    public init(options: UpgradeCrashOptions, sharelog: URL) {
        self.options = options
        self.sharelog = sharelog
    }

    /// Runs every kill, calling `progress` after each.
    ///
    /// - Returns: the numbers, with the violations of the first copy that
    ///   broke an invariant (the run stops there and keeps that copy).
    /// - Throws: when the directories or the store cannot be made.
    public func run(progress: (UpgradeCrashReport) -> Void = { _ in }) throws -> UpgradeCrashReport {
        let started = ContinuousClock.now
        let root = options.directory ?? (NSTemporaryDirectory() as NSString)
            .appendingPathComponent("sharelog-upgrade-crash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        var report = UpgradeCrashReport(seed: options.seed)
        let plan = Format1Store(seed: options.seed, shareCount: options.shares)
        report.store = plan.summary
        report.logEntries = plan.log.count
        let original = (root as NSString).appendingPathComponent("format1")
        try Format1StoreWriter.write(plan, to: original)
        do {
            let audit = UpgradeAudit(plan: plan, log: try LMDBUtilities.dump("log", at: original))
            let seen = try UpgradeAudit.seen(at: original)
            guard seen == .format1(withNewDatabases: false) else { throw CrashViolation("the written store is \(seen), not format 1") }
            report.upgradeMicroseconds = try upgradeWithoutKill(original, root: root, audit: audit)
            var random = SeededGenerator(seed: options.seed, 1)
            while report.kills < options.kills, report.violations.isEmpty {
                let copy = try self.copy(original, to: root, named: "kill-\(report.kills)")
                let delay = Int.random(in: 0...report.upgradeMicroseconds * 5 / 4, using: &random)
                let violations = try kill(on: copy, after: delay, audit: audit, into: &report)
                if violations.isEmpty {
                    try FileManager.default.removeItem(atPath: copy)
                } else {
                    report.violations = violations.map(\.description)
                    report.failedStore = copy
                }
                report.seconds = (ContinuousClock.now - started).seconds
                progress(report)
            }
        } catch let violation as CrashViolation {
            report.violations.append(violation.description)
        }
        report.seconds = (ContinuousClock.now - started).seconds
        if report.passed && !options.keep { try? FileManager.default.removeItem(atPath: root) }
        return report
    }

    /// Upgrades a copy to completion and checks it: that checks the store
    /// the writer made against its plan. Returns the child's run in µs.
    private func upgradeWithoutKill(_ original: String, root: String, audit: UpgradeAudit) throws -> Int {
        let copy = try self.copy(original, to: root, named: "unkilled")
        let started = ContinuousClock.now
        let outcome = try Subprocess.run(sharelog.path, arguments(copy), environment: ProcessInfo.processInfo.environment)
        let elapsed = Self.microseconds(ContinuousClock.now - started)
        try checkExit(outcome, audit: audit)
        let violations = audit.check(copy, upgrading: false)
        guard violations.isEmpty else {
            throw CrashViolation("the unkilled upgrade of \(copy): " + violations.map(\.description).joined(separator: "; "))
        }
        try FileManager.default.removeItem(atPath: copy)
        return elapsed
    }

    /// Starts the upgrade on `copy`, kills it after `microseconds`, reaps it,
    /// counts where the kill landed and checks the copy. A child that exits
    /// first shortens `upgradeMicroseconds` to its run, if shorter: the
    /// first, unkilled run may have shared the processors with more work.
    private func kill(on copy: String, after microseconds: Int, audit: UpgradeAudit,
                      into report: inout UpgradeCrashReport) throws -> [CrashViolation] {
        let child = try Subprocess(sharelog.path, arguments(copy), environment: ProcessInfo.processInfo.environment)
        let started = ContinuousClock.now
        let end = started.advanced(by: .microseconds(microseconds))
        // Polled, so that a child that exits first is timed.
        while child.isRunning, ContinuousClock.now < end { usleep(100) }
        if !child.isRunning {
            report.upgradeMicroseconds = min(report.upgradeMicroseconds, Self.microseconds(ContinuousClock.now - started))
        }
        child.kill()
        let outcome = try child.finish(timeout: .seconds(60))
        report.kills += 1
        guard outcome.signaled else {
            try checkExit(outcome, audit: audit)
            report.exited += 1
            return audit.check(copy, upgrading: false)
        }
        guard outcome.status == SIGKILL else { return [CrashViolation("the child ended by signal \(outcome.status), not SIGKILL")] }
        let seen = try UpgradeAudit.seen(at: copy)
        switch seen {
        case .format1(withNewDatabases: false): report.before += 1
        case .format1(withNewDatabases: true): report.during += 1
        case .format3: report.after += 1
        case .broken(let what): return [CrashViolation("a kill \(microseconds) µs after the start left \(what)")]
        }
        return audit.check(copy, upgrading: seen != .format3)
    }

    /// `sharelog upgrade --json` on `store`, at the plan's time (the
    /// upgrade reads no clock; no command should read today's date here).
    private func arguments(_ store: String) -> [String] {
        ["--store", store, "--now", "2030-01-04T00:00:00Z", "upgrade", "--json"]
    }

    /// A child that exited by itself must have upgraded and said so exactly.
    private func checkExit(_ outcome: Subprocess.Outcome, audit: UpgradeAudit) throws(CrashViolation) {
        let expected = #"{"eventsReplayed":\#(audit.plan.log.count),"fromVersion":1,"toVersion":3,"upgraded":true}"# + "\n"
        let output = String(decoding: outcome.output, as: UTF8.self)
        guard !outcome.signaled, outcome.status == 0, output == expected else {
            throw CrashViolation("sharelog upgrade ended with status \(outcome.status) printing \(output) "
                + "\(String(decoding: outcome.error, as: UTF8.self)), not \(expected)")
        }
    }

    private static func microseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds) * 1_000_000 + Int(duration.components.attoseconds / 1_000_000_000_000)
    }

    /// A fresh directory `root/name` holding a copy of `original`'s data.mdb.
    private func copy(_ original: String, to root: String, named name: String) throws -> String {
        let path = (root as NSString).appendingPathComponent(name)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: original + "/data.mdb", toPath: path + "/data.mdb")
        return path
    }
}
