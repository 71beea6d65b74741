import Foundation
import LMDB
import ShareLog

/// A ShareLog store opened with a chosen `commitDelay`
/// (`Environment.Options`, through `ShareStore.Options.environment`), for
/// the create workload's group-commit rows: concurrent creators with and
/// without the delay, and what the delay costs a lone writer.
final class GroupCommitStore {
    private var store: ShareStore?
    /// The store's own environment (one instance per directory), read only
    /// for its commit count.
    private var environment: Environment?
    private let clock = BenchClock()

    init(path: String, commitDelay: Duration) throws {
        var options = ShareStore.Options()
        options.clock = clock
        options.environment.commitDelay = commitDelay
        store = try ShareStore.open(at: path, creatingIfMissing: true, options: options)
        environment = try Environment.open(at: path, databases: ShareStore.databaseNames, options: options.environment)
    }

    private var opened: ShareStore {
        guard let store else { preconditionFailure("the group-commit store was closed") }
        return store
    }

    /// Durable commits since the store was made (LMDB's last transaction id).
    var commits: Int { environment?.info.lastTransactionID ?? 0 }

    /// Cards `first ..< first + count` of `deck` from `creators` tasks, each
    /// creating its cards one at a time with the async `create`.
    ///
    /// - Returns: how many shares were created.
    func createConcurrently(_ deck: CardDeck, first: Int, count: Int, creators: Int, createdAt: Int64, ttl: Int64) async throws -> Timed<Int> {
        clock.set(createdAt)
        let store = opened
        let shares = (0..<creators).map { creator in
            stride(from: creator, to: count, by: creators).map { deck.card(first + $0) }
        }
        let stopwatch = Stopwatch()
        let made = try await withThrowingTaskGroup(of: Int.self) { group in
            for cards in shares {
                group.addTask {
                    for card in cards { _ = try await store.create(vCard: card, ttl: .milliseconds(ttl)) }
                    return cards.count
                }
            }
            return try await group.reduce(0, +)
        }
        return Timed(value: made, seconds: stopwatch.seconds)
    }

    /// Cards `first ..< first + count` of `deck`, one per commit, on this
    /// thread: a lone writer.
    ///
    /// - Returns: how many shares were created.
    func createAlone(_ deck: CardDeck, first: Int, count: Int, createdAt: Int64, ttl: Int64) throws -> Timed<Int> {
        clock.set(createdAt)
        let store = opened
        let stopwatch = Stopwatch()
        for index in first..<first + count { _ = try store.create(vCard: deck.card(index), ttl: .milliseconds(ttl)) }
        return Timed(value: count, seconds: stopwatch.seconds)
    }

    func close() {
        store = nil
        environment = nil
    }
}
