import ShareLog

/// What the driver found when it read this store's log for the peer
/// (`SessionAction.readLog`).
enum LogRead: Sendable {
    /// The next run of the log.
    case batch(ReplicationBatch)
    /// The peer's cursor cannot be served: it must take a snapshot of the
    /// store, which is at epoch `current` now.
    case snapshotRequired(SnapshotReason, current: Epoch)
}
