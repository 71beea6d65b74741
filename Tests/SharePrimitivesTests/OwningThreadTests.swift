import Foundation
import SharePrimitives
import Synchronization
import Testing

/// A value's owning thread is the thread that made it until another adopts
/// it, and no other thread passes the check (`isCurrent`, which debug
/// builds assert on every use of a sync channel).
@Suite struct OwningThreadTests {
    @Test func onlyTheThreadThatMadeItOwnsIt() throws {
        let owner = OwningThread()
        #expect(owner.isCurrent)
        #expect(try onAnotherThread { owner.isCurrent } == false)
    }

    @Test func aThreadThatAdoptsItBecomesTheOnlyOwner() throws {
        let made = OwningThread()
        let seen = try onAnotherThread {
            var owner = made
            let ownedBefore = owner.isCurrent
            owner.adoptCurrent()
            return (ownedBefore: ownedBefore, ownedAfter: owner.isCurrent, owner: owner)
        }
        #expect(!seen.ownedBefore, "the other thread owned it before adopting it")
        #expect(seen.ownedAfter, "the thread that adopted it does not own it")
        #expect(!seen.owner.isCurrent, "the thread it was adopted from still owns it")
    }

    /// `body`'s result, run on a thread of its own.
    private func onAnotherThread<R: Sendable>(_ body: @escaping @Sendable () -> R) throws -> R {
        let result = Mutex<R?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let value = body()
            result.withLock { $0 = value }
            done.signal()
        }
        try #require(done.wait(timeout: .now() + 60) == .success, "the other thread did not finish")
        return try #require(result.withLock { $0 })
    }
}
