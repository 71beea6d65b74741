import LMDB
import SharePrimitives

/// Tells subscribers the store's last log position after each commit that
/// moved it, so live follow can push new events without polling.
///
/// Each subscriber's stream keeps only the newest position (a slow reader
/// skips to the latest, and then reads the events after its own cursor), and
/// yields only positions larger than the last it yielded: two commits that
/// announce from different threads in the opposite order, or a subscriber's
/// first read racing a commit, can never leave a stream on an older
/// position. Yields happen under the feed's lock, which is what keeps them
/// in order; `yield` never blocks. Thread-safe; publishing costs nothing
/// while nobody subscribes.
final class CommitFeed: Sendable {
    private struct Subscriber {
        let continuation: AsyncStream<UInt64>.Continuation
        var lastYielded: UInt64?

        /// Yields `position` if it is past what this stream already said.
        mutating func offer(_ position: UInt64) {
            guard lastYielded.map({ position > $0 }) ?? true else { return }
            lastYielded = position
            continuation.yield(position)
        }
    }

    private struct State {
        var subscribers: [Int: Subscriber] = [:]
        var nextID = 0
    }

    /// The subscribers, and the id the next one gets.
    private let state = Locked(State())

    var isWatched: Bool { state.withLock { !$0.subscribers.isEmpty } }

    /// A new stream that yields the position `readCurrent` gives, then each
    /// larger position published, until the subscriber stops iterating or
    /// the feed ends. The subscriber is listed before `readCurrent` runs, so
    /// no commit falls between the two.
    func subscribe<Failure: Error>(readCurrent: () throws(Failure) -> UInt64) throws(Failure) -> AsyncStream<UInt64> {
        let (stream, continuation) = AsyncStream<UInt64>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.subscribers[id] = Subscriber(continuation: continuation)
            return id
        }
        let current: UInt64
        do {
            current = try readCurrent()
        } catch {
            state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
            throw error
        }
        state.withLock { $0.subscribers[id]?.offer(current) }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Offers `position` to every subscriber.
    func publish(_ position: UInt64) {
        state.withLock { state in
            for id in state.subscribers.keys { state.subscribers[id]?.offer(position) }
        }
    }

    /// Ends every stream.
    func finish() {
        let subscribers = state.withLock { state in
            defer { state.subscribers = [:] }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.continuation.finish() }
    }
}
