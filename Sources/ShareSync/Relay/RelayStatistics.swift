import Foundation

/// What a relay has done since it started. Read from any thread.
///
/// `@unchecked Sendable`: `counts` is only touched under `condition`
/// (NSCondition: ThreadSanitizer sees pthread mutexes).
public final class RelayStatistics: @unchecked Sendable {
    public struct Counts: Sendable, Equatable, Encodable {
        /// This replica's own events the stream acknowledged.
        public var published = 0
        /// Of those, how many JetStream already held (a retry after a crash).
        public var duplicatesPublished = 0
        /// Messages fetched from the stream and applied (or skipped as held).
        public var received = 0
        /// Of those, events new to this store.
        public var applied = 0
        /// The last stream sequence this store committed.
        public var streamPosition: UInt64 = 0
        /// Messages the consumer had not delivered yet, at the last fetch.
        public var streamPending: UInt64 = 0
        /// Messages removed from the middle of the stream by an operator.
        public var deletedInStream = 0
        /// Connection or cluster errors the relay waited out.
        public var retries = 0
        /// Snapshots taken from a peer after the stream lost messages.
        public var snapshots = 0
        /// Times the durable consumer was made afresh rather than bound as
        /// it was: at a first start, after an operator deleted it, or when
        /// it had delivered past the store's cursor (docs/SCALING.md).
        public var consumersMade = 0
        /// Fetches made to catch up before publishing: none when the store
        /// had already applied the stream up to its last sequence at start.
        public var catchUpFetches = 0
    }

    private let condition = NSCondition()
    private var counts = Counts()

    public init() {}

    public var current: Counts { condition.withLock { counts } }

    /// The counts once they differ from `seen`, or as they are when
    /// `timeout` has passed: a watcher blocks here instead of polling, and
    /// sees each change as soon as the relay makes it. Blocks the calling
    /// thread; call it from a thread of the caller's own.
    public func counts(after seen: Counts, timeout: Duration) -> Counts {
        let deadline = Date(timeIntervalSinceNow: Double(timeout.components.seconds) + Double(timeout.components.attoseconds) * 1e-18)
        return condition.withLock {
            while counts == seen, condition.wait(until: deadline) {}
            return counts
        }
    }

    func update(_ change: (inout Counts) -> Void) {
        condition.withLock {
            change(&counts)
            condition.broadcast()
        }
    }
}
