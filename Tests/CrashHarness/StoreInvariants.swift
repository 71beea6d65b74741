import ShareLog

/// The invariants every workload's store keeps however its writers died:
/// `verify` finds the projections equal to the fold of the log, no log entry
/// corrupt, and no gap in the local sequences.
enum StoreInvariants {
    static func check(_ store: ShareStore, into check: inout CrashCheck) throws {
        let report = try store.verify()
        for gap in report.positionGaps.prefix(10) { check.fail("verify: local sequence \(gap) is missing from the log") }
        for corrupt in report.corruptEvents.prefix(10) { check.fail("verify: \(corrupt)") }
        for mismatch in report.mismatches.prefix(10) { check.fail("verify: \(mismatch)") }
        let unlisted = [report.positionGaps.count, report.corruptEvents.count, report.mismatches.count]
            .reduce(report.unlistedMismatches) { $0 + max($1 - 10, 0) }
        if unlisted > 0 { check.fail("verify: \(unlisted) more problems") }
    }
}
