import LMDBScrub

/// What a compaction did.
public struct CompactionReport: Hashable, Sendable {
    /// Log entries rewritten without their card.
    public var redacted = 0
    /// Write transactions committed.
    public var batches = 0
    /// What the closing scrub of the file zeroed.
    public var scrub: ScrubReport?
}
