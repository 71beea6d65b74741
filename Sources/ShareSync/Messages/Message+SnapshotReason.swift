extension Message {
    /// Why a `snapshotRequired` says the cursor cannot be served by a pull:
    /// the wire form of the engine's `ShareLog.SnapshotReason`.
    public enum SnapshotReason: UInt8, CaseIterable, Hashable, Sendable {
        /// The cursor belongs to an epoch of the sender's store that the sender
        /// does not recognise (a wiped, restored or recreated store).
        case epochUnknown = 1
        /// The cursor is behind the sender's retention horizon: events after it
        /// may have been trimmed.
        case behindHorizon = 2
        /// The cursor is past the end of the sender's log.
        case cursorAhead = 3
    }
}
