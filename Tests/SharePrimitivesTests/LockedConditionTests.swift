import Foundation
import SharePrimitives
import Testing

/// The condition's waits: a change wakes a waiter, and a deadline ends a
/// wait with nil. Outcomes only, no timings: every wait here has a
/// deadline, so a broken wake fails the test instead of hanging it.
@Suite struct LockedConditionTests {
    private struct State {
        var ready = false
    }

    @Test func aChangeWakesATimedWaiter() {
        let state = LockedCondition(State())
        // Another lock's: a body that returns nil leaves its own value be.
        let looked = LockedCondition(false)
        let woken = Locked<Bool?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let result = state.wait(
                until: { state -> Bool? in
                    if !state.ready { looked.withLock { $0 = true } }
                    return state.ready ? true : nil
                }, deadline: .now + .seconds(60))
            woken.withLock { $0 = result }
            done.signal()
        }
        // The waiter has looked and found nothing, holding `state`'s lock
        // until it sleeps: the change below, under that lock, wakes it.
        #expect(looked.wait(until: { $0 ? true : nil }, deadline: .now + .seconds(60)) == true)
        state.withLock { $0.ready = true }
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(woken.withLock { $0 } == true)
    }

    @Test func aWaiterWhoseDeadlinePassesGetsNil() {
        let state = LockedCondition(State())
        let deadline = ContinuousClock.now + .milliseconds(20)
        let result = state.wait(until: { $0.ready ? true : nil }, deadline: deadline)
        #expect(result == nil)
        // The contract's bound: never nil before the deadline.
        #expect(ContinuousClock.now >= deadline)
    }

    @Test func aPastDeadlineStillLooksOnce() {
        let state = LockedCondition(State(ready: true))
        let past = ContinuousClock.now - .seconds(1)
        #expect(state.wait(until: { $0.ready ? 7 : nil }, deadline: past) == 7)
        state.withLock { $0.ready = false }
        let looks = Locked(0)
        let result = state.wait(
            until: { state -> Int? in
                looks.withLock { $0 += 1 }
                return state.ready ? 7 : nil
            }, deadline: past)
        #expect(result == nil)
        #expect(looks.withLock { $0 } == 1)
    }

    @Test func aResultMayChangeTheValueAndWakesTheOthers() {
        let tokens = LockedCondition(0)
        let taken = Locked(0)
        let group = DispatchGroup()
        for _ in 0..<3 {
            group.enter()
            Thread.detachNewThread {
                let token: Void? = tokens.wait(
                    until: { count -> Void? in
                        guard count > 0 else { return nil }
                        count -= 1
                        return ()
                    }, deadline: .now + .seconds(60))
                if token != nil { taken.withLock { $0 += 1 } }
                group.leave()
            }
        }
        tokens.withLock { $0 = 3 }
        #expect(group.wait(timeout: .now() + 60) == .success)
        #expect(taken.withLock { $0 } == 3)
        #expect(tokens.withLock { $0 } == 0)
    }
}
