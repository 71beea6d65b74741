import Dispatch
import SharePrimitives

/// The writer's rule for holding a group commit open
/// (`Environment.Options.commitDelay`), like PostgreSQL's `commit_delay`
/// with its `commit_siblings`.
///
/// After each commit it notes how many writers were active around it: the
/// writes in the group, whose callers may be about to write again, plus the
/// writes that queued while it ran. Before taking the next group, the
/// writer waits for that many queued writes, up to the delay, when:
/// - the delay is not zero;
/// - the writer woke within one delay of answering the previous group (a
///   writer coming back after a pause finds no siblings to wait for);
/// - fewer than that many writes are queued already, so a lone writer,
///   whose own write is all it waits for, never waits.
///
/// A plain value: the writer thread owns it, and the tests drive it with
/// hand-picked times.
struct CommitDelay {
    /// The longest wait, in nanoseconds; 0 turns the rule off.
    let nanoseconds: UInt64
    /// Writers active around the previous commit.
    private var recentWriters = 0
    /// When the previous group was answered (`DispatchTime` nanoseconds).
    private var answeredAt: UInt64 = 0

    /// - Parameter delay: negative counts as zero; anything past a century
    ///   as a century, so deadlines never overflow.
    init(_ delay: Duration) {
        nanoseconds = UInt64(min(max(delay, .zero), .seconds(100 * 365 * 86_400)).wholeNanoseconds)
    }

    /// How many queued writes to wait for before taking the next group,
    /// or nil to take it at once.
    ///
    /// - Parameters:
    ///   - queued: writes queued now, at least one.
    ///   - now: `DispatchTime` nanoseconds.
    func writesToWaitFor(queued: Int, now: UInt64) -> Int? {
        guard nanoseconds > 0, now &- answeredAt <= nanoseconds else { return nil }
        let target = min(recentWriters, Writer.maxGroupSize)
        return queued < target ? target : nil
    }

    /// Records a group of `group` writes answered at `now`, with `queued`
    /// more writes waiting when its commit ended.
    mutating func answered(group: Int, queued: Int, at now: UInt64) {
        recentWriters = group + queued
        answeredAt = now
    }
}
