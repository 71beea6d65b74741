import Foundation

/// The numbers of a sync crash run (`SyncCrashRunner`), printed as text or JSON.
public struct SyncCrashReport: Codable, Sendable {
    public var seed: UInt64
    /// SIGKILLs of a chosen victim, one per round…
    public var kills = 0
    /// …by victim (`SyncVictim`'s raw values).
    public var killsByVictim: [String: Int] = [:]
    /// Client kills whose chosen moment found the session ended by itself
    /// (a new one was started and killed at once, so these are still kills).
    public var clientSessionsEndedFirst = 0
    /// Writers SIGKILLed to stop them before the pair converges (not counted in `kills`).
    public var writerStops = 0
    /// Fresh pairs of stores used.
    public var pairs = 0
    /// Rounds checked (one per kill).
    public var rounds = 0
    /// Distinct operations the writers acknowledged, on A and on B, and the
    /// runner's own probe writes.
    public var acknowledgedOnA = 0
    public var acknowledgedOnB = 0
    public var probes = 0
    /// Acknowledged operations checked on one store, summed over both
    /// stores and every round (each is checked again in every later round of its pair).
    public var operationsChecked = 0
    /// Creates or revokes a kill interrupted between begin and ack…
    public var inDoubt = 0
    /// …and how many of those creates were found committed.
    public var inDoubtCreatesApplied = 0
    /// Sync sessions that ended well while the pair ran…
    public var sessionsEndedWell = 0
    /// …that failed because the server was killed while they ran…
    public var sessionsFailedWithServer = 0
    /// …and that ran after the writers stopped, until the pair converged.
    public var convergingSessions = 0
    /// The most converging sessions one round needed.
    public var mostConvergingSessions = 0
    /// Clip fetches from A whose answer was checked, and fetches that
    /// failed because the server was killed meanwhile.
    public var clipFetchesChecked = 0
    public var clipFetchesFailedWithServer = 0
    /// Log entries in A and B at the last check of each pair, summed.
    public var events = 0
    public var seconds = 0.0
    /// Broken invariants; empty for a passing run.
    public var violations: [String] = []
    /// The pair a violation was found in, kept for inspection.
    public var failedPair: String?

    public init(seed: UInt64) { self.seed = seed }

    public var passed: Bool { violations.isEmpty }

    /// The verdict on the whole run: a run in which no writer acknowledged
    /// anything checked nothing, so it fails too.
    public mutating func judge() {
        guard violations.isEmpty, acknowledgedOnA + acknowledgedOnB == 0 else { return }
        violations.append("no writer acknowledged any operation in the whole run (\(kills) kills), so nothing was checked")
    }

    public var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)
    }

    public var text: String {
        let victims = SyncVictim.allCases.map { "\(killsByVictim[$0.rawValue] ?? 0) \($0.rawValue)" }.joined(separator: ", ")
        var lines = [
            "sync crash: \(kills) kills (\(victims)) in \(pairs) pairs, seed \(seed)",
            "  acknowledged: \(acknowledgedOnA) on A, \(acknowledgedOnB) on B, \(probes) probes; "
                + "checked \(operationsChecked) times on A and B over \(rounds) rounds",
            "  in doubt at a kill: \(inDoubt) (\(inDoubtCreatesApplied) creates found committed); "
                + "\(writerStops) writers stopped by SIGKILL before converging",
            "  sync sessions: \(sessionsEndedWell) ended well, \(sessionsFailedWithServer) failed with the killed server, "
                + "\(clientSessionsEndedFirst) ended before their kill; \(convergingSessions) to converge "
                + "(at most \(mostConvergingSessions) in a round)",
            "  clip fetches from A: \(clipFetchesChecked) answers checked, \(clipFetchesFailedWithServer) failed with the killed server",
            "  log entries at the last checks: \(events)",
        ]
        if passed {
            lines.append("  every invariant held; \(String(format: "%.1f", seconds)) s")
        } else {
            lines.append("  FAILED: \(violations.count) violations\(failedPair.map { " in \($0)" } ?? "")")
            lines += violations.prefix(20).map { "    - \($0)" }
        }
        return lines.joined(separator: "\n")
    }
}
