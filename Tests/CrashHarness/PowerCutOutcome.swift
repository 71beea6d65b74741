/// What one power-cut state held, as the checker child found it.
public struct PowerCutOutcome: Codable, Sendable, Hashable {
    public enum Verdict: String, Codable, Sendable {
        /// Every operation acknowledged before the cut is there, `verify`
        /// passes, and the store takes a new write.
        case intact
        /// Consistent, but the last `lost` acknowledged operations are missing.
        case lost
        /// The store does not open, `verify` finds damage, a read or the
        /// new write fails, the checker died reading it, or what it holds
        /// is explained by no number of lost operations.
        case corrupt
        /// The same bytes and acknowledgements as an earlier state: not checked again.
        case repeated
    }

    /// The state's index in the run's list of states.
    public var index: Int
    public var state: PowerCutState
    /// Operations the writer had acknowledged before the cut.
    public var acknowledged: Int
    /// How many of those it acknowledged after the last completed sync
    /// began (`PowerCutSpace.unsynced(at:)`).
    public var unsynced = 0
    public var verdict: Verdict
    /// How many of the last acknowledged operations are missing (`lost`).
    public var lost = 0
    /// The first violation or error, for `lost` and `corrupt`.
    public var detail: String?

    public init(index: Int, state: PowerCutState, acknowledged: Int, verdict: Verdict, lost: Int = 0, detail: String? = nil) {
        self.index = index
        self.state = state
        self.acknowledged = acknowledged
        self.verdict = verdict
        self.lost = lost
        self.detail = detail
    }
}
