import Foundation
import SharePrimitives
import Testing

/// The lock serialises its users: increments from several threads all land.
@Suite struct LockedTests {
    @Test func incrementsFromFourThreadsAllLand() {
        let counter = Locked(0)
        let ready = DispatchSemaphore(value: 0), go = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        for _ in 0..<4 {
            group.enter()
            Thread.detachNewThread {
                // All four start together, so their increments overlap.
                ready.signal()
                go.wait()
                for _ in 0..<100_000 { counter.withLock { $0 += 1 } }
                group.leave()
            }
        }
        for _ in 0..<4 { #expect(ready.wait(timeout: .now() + 60) == .success) }
        for _ in 0..<4 { go.signal() }
        #expect(group.wait(timeout: .now() + 60) == .success)
        #expect(counter.withLock { $0 } == 400_000)
    }

    @Test func aThrowingBodyLeavesTheValueAsItLeftIt() {
        struct Stop: Error {}
        let value = Locked([1])
        #expect(throws: Stop.self) {
            try value.withLock { (numbers: inout [Int]) throws(Stop) in
                numbers.append(2)
                throw Stop()
            }
        }
        // The lock was released: taking it again does not stop the process.
        #expect(value.withLock { $0 } == [1, 2])
    }
}
