/// When a long-running process maintains its store (`MaintenanceScheduler`)
/// and in what batches.
///
/// The defaults bound how long a card outlives its share in the store's
/// files: a share that ends is expired by the next sweep, at most
/// `sweepInterval` later, and the compaction that follows that sweep
/// rewrites its log entry and scrubs the file (docs/OPERATIONS.md
/// "Maintenance").
public struct MaintenanceSchedule: Hashable, Sendable {
    /// How often a pass runs: a sweep, then a compaction when some card
    /// waits for one. One minute by default.
    public var sweepInterval: Duration = .seconds(60)
    /// How often a pass also trims (forgets shares ended longer ago than
    /// `ShareStore.defaultRetention`); nil never trims. A day by default:
    /// a trim reads the whole log. The first pass trims.
    public var trimInterval: Duration? = .seconds(86_400)
    /// Shares expired per write transaction of a sweep.
    public var sweepBatch = 1000
    /// Log entries rewritten per write transaction of a compaction.
    public var compactionBatch = 1000

    public init() {}
}
