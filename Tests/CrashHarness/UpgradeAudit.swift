import ShareLog

/// Checks a store that an upgrade may have been killed in against the
/// `Format1Store` it was made from.
///
/// `seen` reads, with lmdb-utils and before anything reopens it, which
/// format the kill left. `check` then reopens it through `ShareStore.open`
/// (which upgrades a store still in format 1) and requires:
/// - the open upgraded it exactly when it was still format 1, replaying
///   every log entry;
/// - the replica and epoch are the plan's; `verify` finds every derived
///   database equal to the fold of the log;
/// - every share answers at `now` what the plan says, a live one with its
///   card byte for byte, and `stats` counts what the plan counts;
/// - `mdb_dump -s log` prints what it printed for the format-1 store;
/// - `meta` says schema 3, and the databases are format 3's, exactly.
public struct UpgradeAudit {
    /// What a store holds as found after a kill, before it is reopened.
    public enum Seen: Equatable, Sendable {
        /// Schema 1 with format 1's databases; `withNewDatabases` when the
        /// killed open had already created format 3's `cursors`, `tokens`
        /// and `idempotency`, empty (its first, separate commit), so the
        /// kill came after that commit.
        case format1(withNewDatabases: Bool)
        /// Schema 3 with exactly format 3's databases.
        case format3
        /// Anything else: a mix of the two formats.
        case broken(String)
    }

    public static let format1Databases = Format1StoreWriter.databases.sorted()
    public static let format3Databases = ShareStore.databaseNames.sorted()

    public let plan: Format1Store
    /// `LMDBUtilities.dump("log", …)` of the format-1 store as written.
    public let log: String

    public init(plan: Format1Store, log: String) {
        self.plan = plan
        self.log = log
    }

    /// Which format the store at `path` holds, by `mdb_stat` and `mdb_dump`.
    public static func seen(at path: String) throws(CrashViolation) -> Seen {
        let databases = try LMDBUtilities.databases(at: path)
        let schema = try LMDBUtilities.schema(at: path)
        switch (schema, databases) {
        case ("00000001", format1Databases): return .format1(withNewDatabases: false)
        case ("00000001", (format1Databases + ["cursors", "idempotency", "tokens"]).sorted()): return .format1(withNewDatabases: true)
        case ("00000003", format3Databases): return .format3
        default: return .broken("schema \(schema ?? "absent") with databases \(databases.joined(separator: ", "))")
        }
    }

    /// Reopens the store at `path` and checks it; `upgrading` says whether it
    /// was still format 1, so the open must upgrade it. Returns the broken
    /// invariants (at most a few per kind), empty when it is right.
    public func check(_ path: String, upgrading: Bool) -> [CrashViolation] {
        var violations: [CrashViolation] = []
        func fail(_ message: String) { violations.append(CrashViolation(message)) }
        do {
            try checkStore(at: path, upgrading: upgrading, fail: fail)
            if try LMDBUtilities.dump("log", at: path) != log { fail("mdb_dump -s log differs from the format-1 store's") }
            let databases = try LMDBUtilities.databases(at: path)
            if databases != Self.format3Databases { fail("the databases are \(databases), not format 3's \(Self.format3Databases)") }
            let schema = try LMDBUtilities.schema(at: path)
            if schema != "00000003" { fail("meta schema is \(schema ?? "absent"), not 00000003") }
        } catch {
            fail("reopening and checking \(path) failed: \(error)")
        }
        return violations
    }

    /// The checks through ShareStore; the store is closed when this returns.
    private func checkStore(at path: String, upgrading: Bool, fail: (String) -> Void) throws {
        var options = ShareStore.Options()
        options.clock = FixedClock(Timestamp(milliseconds: plan.now))
        let store = try ShareStore.open(at: path, options: options)
        let upgrade = store.upgrade.map { "from \($0.fromVersion) to \($0.toVersion), \($0.eventsReplayed) replayed" } ?? "none"
        let expected = upgrading ? "from 1 to 3, \(plan.log.count) replayed" : "none"
        if upgrade != expected { fail("the open's upgrade was \(upgrade), not \(expected)") }
        if store.replicaID != plan.replica || store.epoch != plan.epoch {
            fail("replica \(store.replicaID) epoch \(store.epoch), not \(plan.replica) and \(plan.epoch)")
        }
        let report = try store.verify()
        if !report.isConsistent {
            let problems = report.mismatches.prefix(3).map(\.description) + report.corruptEvents.prefix(3).map(\.description)
                + report.positionGaps.prefix(3).map { "gap at \($0)" }
            fail("verify: \(problems.joined(separator: "; "))")
        }
        var wrong = 0
        for share in plan.shares {
            let answer = share.describe(try store.fetch(share.name))
            guard answer != share.expectedAnswer else { continue }
            wrong += 1
            if wrong <= 5 { fail("share \(share.name) (\(share.fate)) answers \(answer), not \(share.expectedAnswer)") }
        }
        if wrong > 5 { fail("\(wrong - 5) more shares answer wrongly") }
        let stats = try store.stats()
        let counted = [stats.events, stats.live, stats.expired, stats.due, stats.pendingRedactions]
        let planned = plan.expectedStats
        let expectedCounts = [planned.events, planned.live, planned.expired, planned.due, planned.pendingRedactions]
        if counted != expectedCounts {
            fail("stats (events, live, expired, due, pending redactions) are \(counted), not \(expectedCounts)")
        }
    }
}
