import Synchronization

/// Raised once, when the task awaiting a long operation (a sweep, a
/// compaction, a verification) is cancelled; the thread running the
/// operation checks it between batches, so cancelling costs at most one
/// batch more and never cuts a transaction in two.
final class CancellationFlag: Sendable {
    private let raised = Atomic<Bool>(false)

    /// Asks the operation to stop at its next check.
    func raise() { raised.store(true, ordering: .releasing) }

    /// Throws `ShareLogError.cancelled` once raised.
    func check() throws(ShareLogError) {
        if raised.load(ordering: .acquiring) { throw .cancelled }
    }
}
