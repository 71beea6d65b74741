import Dispatch
import Synchronization
import Testing
import TestSupport
@testable import ShareLog
import TestTraits

/// Cancelling the task that awaits a long async operation stops it at its
/// next batch, with `ShareLogError.cancelled`; what committed stays, and running
/// it again finishes the job (docs/EMBEDDING.md "Threads and async").
@Suite(.hangDeadline) struct AsyncCancellationTests {
    static let shares = 20

    /// A store with `shares` one-minute shares, and the time they are all due.
    static func storeWithDueShares() throws -> (TestStore, Timestamp) {
        let test = try TestStore()
        _ = try test.store.create(vCards: (0..<shares).map(smallCard), ttl: .seconds(60))
        return (test, test.clock.now().advanced(by: .seconds(120)))
    }

    /// Runs `operation` in a task whose progress stops at `stop` until the
    /// task is cancelled, and returns how the task ended.
    static func cancelled<R: Sendable>(
        at stop: Int, _ operation: @escaping @Sendable (_ progress: @escaping @Sendable (Int) -> Void) async throws -> R
    ) async throws -> Result<R, any Error> {
        let gate = ProgressGate(stop: stop)
        let task = Task { try await operation(gate.reached) }
        try await Deadline.wait(until: "the operation reaches step \(stop)") { gate.isWaiting }
        task.cancel()
        gate.open()
        return await task.result
    }

    @Test func aCancelledSweepStopsAfterItsBatchAndASecondFinishesIt() async throws {
        let (test, due) = try Self.storeWithDueShares()
        let ended = try await Self.cancelled(at: 3) { progress in
            try await test.store.sweep(at: due, batchSize: 1) { progress($0.batches) }
        }
        #expect(throws: ShareLogError.cancelled) { try ended.get() }
        // Three batches of one committed; the rest is left for the next sweep.
        #expect(try await test.store.sweep(at: due).expired == Self.shares - 3)
        #expect(try await test.store.verify().isConsistent)
    }

    @Test func aCancelledCompactionStopsAfterItsBatchAndASecondFinishesIt() async throws {
        let (test, due) = try Self.storeWithDueShares()
        #expect(try await test.store.sweep(at: due).expired == Self.shares)
        let ended = try await Self.cancelled(at: 3) { progress in
            try await test.store.compact(batchSize: 1) { progress($0.batches) }
        }
        #expect(throws: ShareLogError.cancelled) { try ended.get() }
        let finished = try await test.store.compact()
        #expect(finished.redacted == Self.shares - 3)
        #expect(finished.scrub != nil)
        #expect(try await test.store.verify().isConsistent)
    }

    @Test func aCancelledVerificationStopsAtItsNextChunk() async throws {
        let (test, _) = try Self.storeWithDueShares()
        let ended = try await Self.cancelled(at: 5) { progress in
            try await test.store.verify(chunkSize: 1) { progress($0) }
        }
        #expect(throws: ShareLogError.cancelled) { try ended.get() }
        #expect(try await test.store.verify(chunkSize: 1).events == Self.shares)
    }
}

/// Holds an operation's progress callback at step `stop` (on the
/// operation's own thread) until `open()`, so a test can cancel the task
/// between two batches.
private final class ProgressGate: Sendable {
    let stop: Int
    private let waiting = Atomic<Bool>(false)
    private let opened = DispatchSemaphore(value: 0)

    init(stop: Int) { self.stop = stop }

    var isWaiting: Bool { waiting.load(ordering: .acquiring) }

    func reached(_ step: Int) {
        guard step == stop else { return }
        waiting.store(true, ordering: .releasing)
        // Bounded: a test that never opens the gate fails instead of hanging.
        _ = opened.wait(timeout: .now() + 60)
    }

    func open() { opened.signal() }
}
