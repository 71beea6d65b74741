import Foundation

/// The numbers of a crash run, printed as text or JSON.
public struct CrashReport: Codable, Sendable {
    public var workload: String
    public var seed: UInt64
    public var writers: [Int]
    /// SIGKILLs delivered.
    public var kills = 0
    /// Fresh stores used.
    public var stores = 0
    /// Times a store was reopened and checked (after each round of kills).
    public var checks = 0
    /// Distinct operations the writers acknowledged.
    public var acknowledged = 0
    /// Acknowledged operations verified, summed over all checks: each is
    /// checked again after every later round of kills on its store.
    public var operationsChecked = 0
    /// Operations a kill interrupted between their begin and their ack…
    public var inDoubt = 0
    /// …and how many of those creates and revokes turned out committed.
    public var inDoubtApplied = 0
    /// Log entries in the stores at their last check.
    public var events = 0
    /// The map every process opened the stores with (`CrashStore`).
    public var initialMapBytes = 0
    /// Rounds after which the map recorded in the store's file was larger
    /// than before the round: the writers grew it while being killed.
    public var mapGrowthRounds = 0
    /// The largest map recorded in any store's file after a round.
    public var largestMapBytes = 0
    public var seconds = 0.0
    /// Broken invariants; empty for a passing run.
    public var violations: [String] = []
    /// The store a violation was found in, kept for inspection.
    public var failedStore: String?

    public init(workload: String, seed: UInt64, writers: [Int]) {
        self.workload = workload
        self.seed = seed
        self.writers = writers
    }

    /// Whether the run passed: it broke no invariant and `judge` found it
    /// tested something.
    public var passed: Bool { violations.isEmpty }

    /// The verdict on the whole run, once its stores are done: a run in
    /// which no writer acknowledged any operation checked nothing (every
    /// writer died before its first commit returned), so it fails too.
    public mutating func judge() {
        guard violations.isEmpty, acknowledged == 0 else { return }
        violations.append("no writer acknowledged any operation in the whole run (\(kills) kills), "
            + "so nothing was checked: the writers died before their first commit returned")
    }

    public var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)
    }

    public var text: String {
        var lines = [
            "crash: \(kills) kills of \(workload) writers (\(writers.map(String.init).joined(separator: " or ")) per store) "
                + "in \(stores) stores, seed \(seed)",
            "  acknowledged operations: \(acknowledged), checked \(operationsChecked) times over \(checks) reopens",
            "  in doubt at a kill: \(inDoubt) (\(inDoubtApplied) creates or revokes found committed)",
            "  log entries at the last checks: \(events)",
            "  map: opened at \(initialMapBytes >> 10) KiB, grew in \(mapGrowthRounds) of \(checks) rounds, "
                + "largest \(largestMapBytes >> 10) KiB",
        ]
        if passed {
            lines.append("  every invariant held; \(String(format: "%.1f", seconds)) s")
        } else {
            lines.append("  FAILED: \(violations.count) violations\(failedStore.map { " in \($0)" } ?? "")")
            lines += violations.prefix(20).map { "    - \($0)" }
        }
        return lines.joined(separator: "\n")
    }
}
