/// Why a peer's cursor cannot be served from this replica's log, so that
/// the peer must bootstrap from a snapshot instead (docs/SYNC.md).
public enum SnapshotReason: Hashable, Sendable, CustomStringConvertible {
    /// The cursor belongs to an epoch this store does not have: the store
    /// was wiped, restored, copied or recreated since the peer read it.
    case epochUnknown(cursor: Epoch, current: Epoch)
    /// The cursor points past the end of this log: the store was restored
    /// from an older copy (or the cursor is not this store's).
    case cursorAhead(position: UInt64, lastPosition: UInt64)
    /// Entries after the cursor were trimmed (`ShareStore.trim`): the log
    /// has gaps up to `horizon`, which the cursor is behind.
    case behindHorizon(position: UInt64, horizon: UInt64)

    public var description: String {
        switch self {
        case .epochUnknown(let cursor, let current):
            "the cursor belongs to epoch \(cursor), and this store is at epoch \(current)"
        case .cursorAhead(let position, let last):
            "the cursor is at position \(position), past the end of this log (\(last))"
        case .behindHorizon(let position, let horizon):
            "the cursor is at position \(position), and this log was trimmed up to \(horizon)"
        }
    }
}
