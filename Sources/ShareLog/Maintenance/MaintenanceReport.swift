import SharePrimitives

/// What one maintenance pass did (`ShareStore.maintain`).
public struct MaintenanceReport: Hashable, Sendable, CustomStringConvertible {
    /// The store's time the pass ran at: shares due then were expired.
    public var at: Timestamp
    /// False when another process, or another pass of this one, was
    /// maintaining the same store: this pass then did nothing at all.
    public var ran: Bool
    /// The sweep's work; zero when the pass was skipped.
    public var sweep = SweepReport()
    /// The compaction's work, when one ran: after a sweep that expired a
    /// share, and whenever a revoked or expired card still waited for one.
    public var compaction: CompactionReport?
    /// The trim's work, when the pass trimmed.
    public var trim: TrimReport?
    /// Idempotency keys of uploads forgotten, when the pass trimmed: those
    /// first seen more than `ShareStore.idempotencyRetention` before `at`.
    public var forgottenKeys: Int?
    /// How long the sweep took, on the monotonic clock.
    public var sweepDuration: Duration = .zero
    /// How long the compaction took, scrub included, when one ran.
    public var compactionDuration: Duration?

    public init(at: Timestamp, ran: Bool) {
        self.at = at
        self.ran = ran
    }

    /// One line for a log: what the pass did, or that it was skipped.
    public var description: String {
        guard ran else { return "maintenance at \(at.iso8601): skipped, another process is maintaining the store" }
        var parts = ["expired \(sweep.expired) share\(sweep.expired == 1 ? "" : "s")"]
        if let compaction {
            parts.append("redacted \(compaction.redacted) card\(compaction.redacted == 1 ? "" : "s") and zeroed \(compaction.scrub?.freePagesZeroed ?? 0) free pages")
        }
        if let trim { parts.append("forgot \(trim.shares) ended share\(trim.shares == 1 ? "" : "s")") }
        if let forgottenKeys, forgottenKeys > 0 { parts.append("forgot \(forgottenKeys) idempotency key\(forgottenKeys == 1 ? "" : "s")") }
        return "maintenance at \(at.iso8601): " + parts.joined(separator: "; ")
    }

    /// `maintenance.pass` (or `maintenance.skipped`): `description` as the
    /// message, and what the pass did as fields.
    public var logRecord: LogRecord {
        guard ran else { return LogRecord(.info, "maintenance.skipped", description, [("at", LogValue(at.iso8601))]) }
        var fields: [(name: String, value: LogValue)] = [
            ("at", LogValue(at.iso8601)), ("expired", LogValue(sweep.expired)), ("sweepMilliseconds", LogValue(sweepDuration.wholeMilliseconds)),
        ]
        if let compaction, let compactionDuration {
            fields += [
                ("redacted", LogValue(compaction.redacted)), ("freePagesZeroed", LogValue(compaction.scrub?.freePagesZeroed ?? 0)),
                ("compactionMilliseconds", LogValue(compactionDuration.wholeMilliseconds)),
            ]
        }
        if let trim { fields.append(("forgotten", LogValue(trim.shares))) }
        if let forgottenKeys { fields.append(("forgottenKeys", LogValue(forgottenKeys))) }
        return LogRecord(.info, "maintenance.pass", description, fields)
    }
}
