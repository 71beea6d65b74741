/// What `ShareStore.adopt(from:at:)` did.
public struct HandoffReport: Hashable, Sendable {
    /// Live shares of the clip whose events this store now holds.
    public var sharesAdopted = 0
    /// Events applied here, and those this store already held.
    public var eventsApplied = 0
    public var eventsAlreadyHeld = 0
    /// Shares the clip holds that had ended by then: not adopted.
    public var sharesEnded = 0
    /// Set when the clip store was already handed off to this store: the
    /// handoff did nothing.
    public var alreadyHandedOffAt: Timestamp?
}
