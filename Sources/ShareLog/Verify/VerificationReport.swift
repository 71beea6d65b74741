/// What `verify` found.
public struct VerificationReport: Sendable, Hashable {
    /// Log entries folded.
    public var events = 0
    /// Derived entries compared: every key stored or implied by the log, once.
    public var entriesCompared = 0
    /// Derived entries that differ from what the log implies, and damaged
    /// keys (the first 100).
    public var mismatches: [Mismatch] = []
    /// Mismatches beyond those listed.
    public var unlistedMismatches = 0
    /// Log entries that do not decode.
    public var corruptEvents: [CorruptEvent] = []
    /// Local sequences missing from the log: the first of each run.
    public var positionGaps: [UInt64] = []

    /// True when the projections equal the fold of the log.
    public var isConsistent: Bool {
        mismatches.isEmpty && corruptEvents.isEmpty && positionGaps.isEmpty
    }

    mutating func record(_ mismatch: Mismatch) {
        if mismatches.count < 100 { mismatches.append(mismatch) } else { unlistedMismatches += 1 }
    }
}
