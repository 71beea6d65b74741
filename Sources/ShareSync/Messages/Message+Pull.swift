import ShareLog

extension Message {
    /// A request for the events after a cursor in the other side's log.
    public struct Pull: Hashable, Sendable {
        /// The epoch of the other side's store that `after` belongs to; nil
        /// for no cursor (all zeros on the wire, so the all-zero epoch is
        /// reserved for it).
        public var knownEpoch: Epoch?
        /// The cursor: a position in the other side's log (0 for its start).
        public var after: UInt64
        /// Stay open after catching up and send new events as they commit.
        public var follow: Bool
        /// The most bytes of events the sender may put in one batch.
        public var maxBatchBytes: UInt32
        /// The highest origin counter of the sender's own replica id that
        /// the puller holds (0 for none): a sender that made fewer refuses
        /// the pull before it sends anything (`UnmadeEventsClaim`).
        public var heldOfYou: UInt64

        /// A pull with these fields.
        public init(knownEpoch: Epoch?, after: UInt64, follow: Bool, maxBatchBytes: UInt32, heldOfYou: UInt64 = 0) {
            self.knownEpoch = knownEpoch
            self.after = after
            self.follow = follow
            self.maxBatchBytes = maxBatchBytes
            self.heldOfYou = heldOfYou
        }
    }
}
