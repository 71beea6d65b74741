import Synchronization

/// Tells subscribers the store's last log position after each commit that
/// moved it, so live follow can push new events without polling.
///
/// Each subscriber's stream keeps only the newest position (a slow reader
/// skips to the latest, and then reads the events after its own cursor).
/// Announced positions only grow: a commit that finished earlier but
/// published later is not announced again, since the later position covers
/// it. Thread-safe; publishing costs nothing while
/// nobody subscribes.
final class CommitFeed: Sendable {
    private struct State {
        var subscribers: [Int: AsyncStream<UInt64>.Continuation] = [:]
        var nextID = 0
        var lastPublished: UInt64 = 0
    }

    private let state = Mutex(State())

    var isWatched: Bool { state.withLock { !$0.subscribers.isEmpty } }

    /// A new stream that yields the position `readCurrent` gives, then each
    /// larger position published, until the subscriber stops iterating or
    /// the feed ends. The subscriber is listed before `readCurrent` runs, so
    /// no commit falls between the two; a position may come twice.
    func subscribe(readCurrent: () throws -> UInt64) rethrows -> AsyncStream<UInt64> {
        let (stream, continuation) = AsyncStream<UInt64>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.subscribers[id] = continuation
            return id
        }
        do {
            continuation.yield(try readCurrent())
        } catch {
            state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
            throw error
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Announces `position` to every subscriber, unless a larger or equal
    /// one was already announced.
    func publish(_ position: UInt64) {
        let subscribers = state.withLock { state -> [AsyncStream<UInt64>.Continuation] in
            guard position > state.lastPublished else { return [] }
            state.lastPublished = position
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.yield(position) }
    }

    /// Ends every stream.
    func finish() {
        let subscribers = state.withLock { state in
            defer { state.subscribers = [:] }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.finish() }
    }
}
