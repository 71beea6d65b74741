import Foundation

/// The numbers of an upgrade crash run (`UpgradeCrashRunner`), printed as
/// text or JSON.
public struct UpgradeCrashReport: Codable, Sendable {
    public var seed: UInt64
    /// The format-1 store every kill started from (`Format1Store.summary`).
    public var store = ""
    /// Log entries the upgrade replays.
    public var logEntries = 0
    /// The shortest run of `sharelog upgrade`, start to exit, seen so far
    /// (the unkilled one, and children that exited before their kill); each
    /// kill's delay is drawn from 0 to 5/4 of it.
    public var upgradeMicroseconds = 0
    /// SIGKILLs sent.
    public var kills = 0
    /// Kills that found the store untouched: the child had not yet
    /// committed its open's first transaction (which creates `cursors`).
    public var before = 0
    /// Kills that found format 3's new databases created and the store still format 1:
    /// the child was inside the upgrade's write transaction.
    public var during = 0
    /// Kills that found format 3: the upgrade had committed.
    public var after = 0
    /// Kills that came after the child had exited by itself (not counted in `after`).
    public var exited = 0
    public var seconds = 0.0
    /// Broken invariants; empty for a passing run.
    public var violations: [String] = []
    /// The store a violation was found in, kept for inspection.
    public var failedStore: String?

    public init(seed: UInt64) { self.seed = seed }

    public var passed: Bool { violations.isEmpty }

    public var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)
    }

    public var text: String {
        var lines = [
            "upgrade crash: \(kills) kills of 'sharelog upgrade' on copies of one format-1 store, seed \(seed)",
            "  store: \(store)",
            "  the shortest whole upgrade run: \(String(format: "%.1f", Double(upgradeMicroseconds) / 1000)) ms; "
                + "delays from 0 to 5/4 of the shortest run so far",
            "  kills landed: \(before) before the upgrade transaction, \(during) during it, \(after) after its commit, "
                + "\(exited) after the child exited",
        ]
        if passed {
            lines.append("  every store reopened as the plan says; \(String(format: "%.1f", seconds)) s")
        } else {
            lines.append("  FAILED: \(violations.count) violations\(failedStore.map { " in \($0)" } ?? "")")
            lines += violations.prefix(20).map { "    - \($0)" }
        }
        return lines.joined(separator: "\n")
    }
}
