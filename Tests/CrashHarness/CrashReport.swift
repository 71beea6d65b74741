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

    public var passed: Bool { violations.isEmpty }

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
