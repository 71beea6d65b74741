import CLMDB
import Foundation
import LMDBScrub
import TestSupport
import Testing
@testable import LMDB
import TestTraits
import SharePrimitives

/// `Environment.close()`: idempotent, drains the writer, lets live reads
/// finish, then refuses every use with `LMDBError.closed`, and frees the
/// directory for a new open at once.
@Suite(.hangDeadline) struct EnvironmentCloseTests {
    @Test func closeIsIdempotentFromAnyNumberOfThreads() throws {
        let store = try Store()
        try store.env.write { txn in try txn.put([1], forKey: [1], in: store.data) }
        DispatchQueue.concurrentPerform(iterations: 4) { _ in store.env.close() }
        store.env.close()
        #expect(store.env.isClosed)
        #expect(store.directory.openFileDescriptors().isEmpty)
    }

    @Test func everyUseAfterCloseThrowsClosedAndWritesNothing() throws {
        let store = try Store()
        let data = store.data
        try store.env.write { txn in try txn.put([1], forKey: [1], in: data) }
        store.env.close()

        #expect(throws: LMDBError.closed) { try store.env.read { txn in try txn.value(forKey: [1], in: data) } }
        #expect(throws: LMDBError.closed) { try store.env.write { txn in try txn.put([2], forKey: [2], in: data) } }
        #expect(throws: LMDBError.closed) { try store.env.database("data") }
        #expect(throws: LMDBError.closed) { try store.env.clearStaleReaders() }
        #expect(throws: LMDBError.closed) { try store.env.scrub() }
        // What stays readable: the values of the close.
        #expect(store.env.info.mapSize > 0)
        #expect(store.env.flags & UInt32(MDB_NOTLS) != 0)

        let reopened = try Environment.open(at: store.directory.path, databases: ["data"])
        #expect(reopened !== store.env)
        #expect(try reopened.read { txn in try txn.count(in: reopened.database("data")) } == 1)
    }

    @Test func anAsyncWriteAfterCloseThrowsClosed() async throws {
        let store = try Store()
        let data = store.data
        let env = store.env
        // close() waits for the writer: run it on a thread of its own.
        let closing = closeOnThread(env)
        try await Deadline.wait(until: "close returned") { closing.isDone }
        await #expect(throws: LMDBError.closed) { try await env.write { txn in try txn.put([2], forKey: [2], in: data) } }
    }

    @Test func writesQueuedBeforeTheCloseLandAndLaterOnesAreRefusedWhole() throws {
        let store = try Store()
        let data = store.data
        let env = store.env
        let acknowledged = Locked<[UInt64]>([])
        let refused = Locked<[UInt64]>([])
        let other = Locked<[String]>([])
        let writers = 4
        let group = DispatchGroup()
        for writer in 0..<writers {
            DispatchQueue.global().async(group: group) {
                // Bounded by a deadline, so a close that refuses nothing
                // fails the test instead of writing forever.
                let deadline = Deadline("writer \(writer) was refused by the close", timeout: .seconds(30))
                var round: UInt64 = 0
                while !deadline.hasPassed {
                    round += 1
                    let number = UInt64(writer) << 32 | round
                    do {
                        // Two keys per write: both land or neither.
                        try env.write { txn in
                            try txn.put([1], forKey: key(number << 1), in: data)
                            try txn.put([2], forKey: key(number << 1 | 1), in: data)
                        }
                        acknowledged.withLock { $0.append(number) }
                    } catch LMDBError.closed {
                        refused.withLock { $0.append(number) }
                        return
                    } catch {
                        other.withLock { $0.append("\(error)") }
                        return
                    }
                }
                other.withLock { $0.append("writer \(writer) was never refused") }
            }
        }
        try Deadline.block(until: "some writes were acknowledged") { acknowledged.withLock { $0.count } >= 50 }
        env.close()
        #expect(group.wait(timeout: .now() + 60) == .success)
        #expect(other.withLock { $0 } == [])
        #expect(refused.withLock { $0.count } == writers)

        let reopened = try Environment.open(at: store.directory.path, databases: ["data"])
        let stored = try reopened.read { txn in
            var keys = Set<[UInt8]>()
            try txn.scan(reopened.database("data")) { entry in
                keys.insert(Array(entry.key))
                return .proceed
            }
            return keys
        }
        let landed = acknowledged.withLock { $0 }
        #expect(stored.count == 2 * landed.count)
        #expect(landed.allSatisfy { stored.contains(key($0 << 1)) && stored.contains(key($0 << 1 | 1)) })
        #expect(refused.withLock { $0 }.allSatisfy { !stored.contains(key($0 << 1)) && !stored.contains(key($0 << 1 | 1)) })
    }

    @Test func aReadInProgressRunsToItsEndBeforeTheHandleCloses() throws {
        let store = try Store()
        let data = store.data
        let env = store.env
        try env.write { txn in try txn.put([7], forKey: [1], in: data) }
        let readInside = Locked(false)
        let readAfterCloseBegan = Locked<[UInt8]?>(nil)
        let reader = Thread {
            try? env.read { txn in
                readInside.withLock { $0 = true }
                // Waits until close() has begun, then reads on.
                try Deadline.block(until: "close began") { env.isClosed }
                let value = try txn.value(forKey: [1], in: data)
                readAfterCloseBegan.withLock { $0 = value }
            }
        }
        reader.start()
        try Deadline.block(until: "the read began") { readInside.withLock { $0 } }
        env.close()
        #expect(readAfterCloseBegan.withLock { $0 } == [7])
        #expect(throws: LMDBError.closed) { try env.read { txn in try txn.value(forKey: [1], in: data) } }
    }

    @Test func theDirectoryOpensAgainAtOnceWithOtherOptions() throws {
        let store = try Store()
        var noSync = Environment.Options()
        noSync.durability = .noSync
        #expect(throws: LMDBError.alreadyOpen) { try Environment.open(at: store.directory.path, databases: ["data"], options: noSync) }
        store.env.close()
        // The first environment is still referenced: only close() freed it.
        let again = try Environment.open(at: store.directory.path, databases: ["data"], options: noSync)
        try again.write { txn in try txn.put([1], forKey: [1], in: again.database("data")) }
        again.close()
        var readOnly = Environment.Options()
        readOnly.readOnly = true
        let reader = try Environment.open(at: store.directory.path, databases: ["data"], options: readOnly)
        #expect(try reader.read { txn in try txn.value(forKey: [1], in: reader.database("data")) } == [1])
    }

    @Test func anOpenIsReleasedByEachOwnerAndClosesWithTheLast() throws {
        let store = try Store()
        let second = try Environment.open(at: store.directory.path, databases: ["data"])
        #expect(second === store.env)
        store.env.release()
        #expect(!store.env.isClosed)
        try second.write { txn in try txn.put([1], forKey: [1], in: store.data) }
        second.release()
        #expect(store.env.isClosed)
        // An open waits while the directory is closing; on a thread of its
        // own, so that a close that never ends fails here instead of hanging.
        let reopened = Locked<Environment?>(nil)
        let path = store.directory.path
        Thread.detachNewThread {
            let env = try? Environment.open(at: path, databases: ["data"])
            reopened.withLock { $0 = env }
        }
        try Deadline.block(until: "the directory opened again") { reopened.withLock { $0 != nil } }
        #expect(reopened.withLock { $0 } !== second)
    }
}

/// Runs `env.close()` on a thread of its own; `isDone` once it returned.
private func closeOnThread(_ env: Environment) -> CloseThread {
    let thread = CloseThread()
    Thread.detachNewThread {
        env.close()
        thread.finish()
    }
    return thread
}

/// Whether a close on another thread has returned.
private final class CloseThread: Sendable {
    private let done = Locked(false)
    var isDone: Bool { done.withLock { $0 } }
    func finish() { done.withLock { $0 = true } }
}
