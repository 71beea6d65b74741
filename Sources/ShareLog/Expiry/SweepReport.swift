/// What a sweep did.
public struct SweepReport: Hashable, Sendable {
    /// Shares turned expired.
    public var expired = 0
    /// Write transactions committed.
    public var batches = 0
    /// Expiry index entries read: the due ones, never the live ones.
    public var keysVisited = 0
}
