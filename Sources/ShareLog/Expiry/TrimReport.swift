import LMDBScrub

/// What a trim did (`ShareStore.trim`).
public struct TrimReport: Hashable, Sendable {
    /// Record names forgotten: their state and every log entry.
    public var shares = 0
    /// Log entries removed.
    public var entries = 0
    /// Write transactions committed.
    public var batches = 0
    /// Full reads of the log that found shares to trim.
    public var passes = 0
    /// The log position up to which the log now has gaps: a peer whose
    /// cursor is behind it must take a snapshot.
    public var trimmedThrough: UInt64 = 0
    /// What the closing scrub zeroed, when a removed entry still held a card.
    public var scrub: ScrubReport?
}
