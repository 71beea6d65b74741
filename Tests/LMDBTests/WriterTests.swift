import Dispatch
import Foundation
import Glibc
import SharePrimitives
import TestSupport
import Testing
@testable import LMDB
import TestTraits

@Suite(.hangDeadline) struct WriterTests {
    struct Refused: Error {}

    @Test func writesFromManyTasksAllRunOnTheWritersThread() async throws {
        let store = try Store()
        let data = store.data
        let threads = try await withThrowingTaskGroup(of: UInt.self) { group in
            for number in 0..<100 {
                group.addTask {
                    try await store.env.write { txn in
                        try txn.put([1], forKey: key(UInt64(number)), in: data)
                        return UInt(pthread_self())
                    }
                }
            }
            return try await group.reduce(into: Set<UInt>()) { $0.insert($1) }
        }
        #expect(threads.count == 1)
        #expect(try store.contents().count == 100)
    }

    @Test func writesFromManyThreadsAllRunOnTheWritersThread() throws {
        let store = try Store()
        let data = store.data
        let threads = Locked(Set<UInt>())
        DispatchQueue.concurrentPerform(iterations: 20) { number in
            let thread = try! store.env.write { txn in
                try txn.put([1], forKey: key(UInt64(number)), in: data)
                return UInt(pthread_self())
            }
            threads.withLock { _ = $0.insert(thread) }
        }
        #expect(threads.withLock { $0.count } == 1)
        #expect(try store.contents().count == 20)
    }

    @Test func aWriteInsideAWriteThrowsInsteadOfDeadlocking() throws {
        let store = try Store()
        let env = store.env, data = store.data
        let inner = try env.write { _ -> LMDBError? in
            do {
                try env.write { txn in try txn.put([1], forKey: [1], in: data) }
                return nil
            } catch let error as LMDBError {
                return error
            }
        }
        #expect(inner == .nestedWrite)
        #expect(try store.contents().isEmpty)
    }

    @Test func aWriteInsideAReadThrowsInsteadOfDeadlocking() throws {
        let store = try Store()
        let env = store.env, data = store.data
        #expect(throws: LMDBError.nestedWrite) {
            try env.read { _ in try env.write { txn in try txn.put([1], forKey: [1], in: data) } }
        }
    }

    @Test func queuedWritesShareOneCommitAndFailIndependently() async throws {
        let store = try Store()
        let env = store.env, data = store.data
        // Hold the writer so that the next 50 writes queue up behind it.
        let hold = try await WriterHold(env)
        let before = env.info.lastTransactionID
        let outcomes = Task {
            try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
                for number in 0..<50 {
                    group.addTask {
                        do {
                            try await env.write { txn in
                                try txn.put([1], forKey: key(UInt64(number)), in: data)
                                if number % 5 == 0 { throw Refused() }
                            }
                            return (number, true)
                        } catch is Refused {
                            return (number, false)
                        }
                    }
                }
                return try await group.reduce(into: [Int: Bool]()) { $0[$1.0] = $1.1 }
            }
        }
        try await Deadline.wait(until: "50 writes queue") { env.writerQueueLength >= 50 }
        try await hold.release()
        let committed = try await outcomes.value
        #expect(committed.filter(\.value).count == 40)
        let stored = try store.contents()
        #expect(stored.count == 40)
        for number in 0..<50 {
            #expect((stored[key(UInt64(number))] != nil) == (number % 5 != 0))
        }
        // The hold wrote nothing, so LMDB commits no transaction for it;
        // the fifty queued writes share a single commit.
        #expect(env.info.lastTransactionID - before == 1)
    }
}
