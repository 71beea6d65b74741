import Dispatch
import Foundation
import TestSupport
import Testing
@testable import LMDB
import TestTraits

/// The writer holds a group commit open for more writes only while other
/// writers are active (`Options.commitDelay`).
@Suite(.hangDeadline, .ownThread) struct CommitDelayTests {
    static func delayed(_ delay: Duration) -> Environment.Options {
        var options = Environment.Options()
        options.commitDelay = delay
        return options
    }

    /// `count` writes of one key, one after another, from one task.
    static func writeAlone(_ count: Int, to store: Store) async throws {
        let data = store.data
        for number in 0..<count {
            try await store.env.write { txn in try txn.put([1], forKey: key(UInt64(number)), in: data) }
        }
    }

    @Test func concurrentWritersCommitTogetherAndALoneWriterAfterThemWaitsOnce() throws {
        // A delay far longer than any writer takes to come back, so every
        // group waits for all eight, and none waits the whole delay. The
        // writers are threads blocking on their writes, so a busy pool of
        // tasks cannot hold one back.
        let store = try Store(options: Self.delayed(.seconds(2)))
        let env = store.env, data = store.data
        let writers = 8, rounds = 20
        let before = env.info.lastTransactionID
        // Writer 0 first holds the writer in a write that changes nothing
        // (so commits nothing) until the others' first writes queue: the
        // eight then start together.
        let holding = Counter(), finished = Counter(), failed = Counter()
        let gate = DispatchSemaphore(value: 0)
        for writer in 0..<writers {
            Thread.detachNewThread {
                do {
                    if writer == 0 {
                        try env.write { _ in
                            holding.increment()
                            gate.wait()
                        }
                    } else {
                        try Deadline.block(until: "writer 0 holds the writer") { holding.count > 0 }
                    }
                    for round in 0..<rounds {
                        try env.write { txn in try txn.put([UInt8(round)], forKey: key(UInt64(writer)), in: data) }
                    }
                } catch {
                    failed.increment()
                }
                finished.increment()
            }
        }
        try Deadline.block(until: "7 writes queue") { env.writerQueueLength >= writers - 1 }
        gate.signal()
        try Deadline.block(until: "the writers finish") { finished.count == writers }
        #expect(failed.count == 0)
        // Eight writes in every commit: one commit per round.
        #expect(env.info.lastTransactionID - before == rounds)
        #expect(try store.contents() == Dictionary(uniqueKeysWithValues: (0..<writers).map { (key(UInt64($0)), [UInt8(rounds - 1)]) }))

        // A writer alone after them waits for the others once, then never.
        let delays = env.writerDelays
        for number in 0..<10 {
            try env.write { txn in try txn.put([2], forKey: key(UInt64(100 + number)), in: data) }
        }
        #expect(env.writerDelays - delays == 1)
        #expect(env.info.lastTransactionID - before == rounds + 10)
    }

    @Test func aLoneWriterIsNeverDelayed() async throws {
        let store = try Store(options: Self.delayed(.milliseconds(200)))
        let before = store.env.info.lastTransactionID
        try await Self.writeAlone(30, to: store)
        #expect(store.env.writerDelays == 0)
        #expect(store.env.info.lastTransactionID - before == 30)
    }
}

/// The rule alone, with hand-picked times in nanoseconds.
@Suite struct CommitDelayRuleTests {
    static let millisecond: UInt64 = 1_000_000

    static func rule(_ delay: Duration = .milliseconds(1), group: Int, queued: Int, at time: UInt64 = 0) -> CommitDelay {
        var rule = CommitDelay(delay)
        rule.answered(group: group, queued: queued, at: time)
        return rule
    }

    @Test func nothingIsAwaitedBeforeTheFirstCommit() {
        #expect(CommitDelay(.milliseconds(1)).writesToWaitFor(queued: 1, now: 0) == nil)
    }

    @Test func aLoneWriterIsNotAwaited() {
        #expect(Self.rule(group: 1, queued: 0).writesToWaitFor(queued: 1, now: 1000) == nil)
    }

    @Test func theWritersActiveAroundThePreviousCommitAreAwaited() {
        #expect(Self.rule(group: 2, queued: 0).writesToWaitFor(queued: 1, now: 1000) == 2)
        // Writes that queued during the commit are writers too.
        #expect(Self.rule(group: 1, queued: 7).writesToWaitFor(queued: 3, now: 1000) == 8)
        #expect(Self.rule(group: 5, queued: 3).writesToWaitFor(queued: 7, now: 1000) == 8)
    }

    @Test func enoughQueuedWritesGoAtOnce() {
        #expect(Self.rule(group: 8, queued: 0).writesToWaitFor(queued: 8, now: 1000) == nil)
        #expect(Self.rule(group: 4, queued: 0).writesToWaitFor(queued: 6, now: 1000) == nil)
    }

    @Test func aWriterBackAfterMoreThanTheDelayIsNotHeld() {
        let rule = Self.rule(group: 8, queued: 0, at: 5 * Self.millisecond)
        #expect(rule.writesToWaitFor(queued: 1, now: 6 * Self.millisecond) == 8)
        #expect(rule.writesToWaitFor(queued: 1, now: 6 * Self.millisecond + 1) == nil)
    }

    @Test func theWaitIsForAtMostOneGroup() {
        #expect(Self.rule(group: 100, queued: 100).writesToWaitFor(queued: 1, now: 1000) == 128)
    }

    @Test func aZeroDelayNeverWaits() {
        #expect(Self.rule(.zero, group: 8, queued: 0).writesToWaitFor(queued: 1, now: 1000) == nil)
        #expect(CommitDelay(.microseconds(250)).nanoseconds == 250_000)
        #expect(CommitDelay(.milliseconds(-3)).nanoseconds == 0)
        #expect(CommitDelay(.seconds(Int64.max)).nanoseconds == 3_153_600_000_000_000_000)
    }
}
