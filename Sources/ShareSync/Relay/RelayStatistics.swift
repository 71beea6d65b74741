import Foundation
import SharePrimitives

/// What a relay has done since it started. Read from any thread.
public final class RelayStatistics: Sendable {
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

    private let counts = LockedCondition(Counts())

    public init() {}

    public var current: Counts { counts.withLock { $0 } }

    /// The counts once they differ from `seen`, or as they are when
    /// `timeout` has passed: a watcher blocks here instead of polling, and
    /// sees each change as soon as the relay makes it. Blocks the calling
    /// thread; call it from a thread of the caller's own.
    public func counts(after seen: Counts, timeout: Duration) -> Counts {
        let changed = counts.wait(until: { $0 == seen ? nil : $0 }, deadline: .now + timeout)
        return changed ?? current
    }

    /// Applies `change` to the counts and wakes every watcher.
    func update(_ change: (inout Counts) -> Void) {
        counts.withLock(change)
    }
}
