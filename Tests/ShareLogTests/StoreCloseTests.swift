import Foundation
import LMDB
import TestSupport
import Testing
@testable import ShareLog
import TestTraits
import SharePrimitives

/// `ShareStore.close()`: idempotent; lets the writes queued land whole and
/// refuses every later use with `closed`, writing nothing; ends the
/// `commits()` feeds; frees the directory for another open at once.
@Suite(.hangDeadline) struct StoreCloseTests {
    @Test func closeIsIdempotentFromAnyNumberOfThreads() throws {
        let test = try TestStore()
        _ = try test.store.create(vCard: smallCard(1))
        DispatchQueue.concurrentPerform(iterations: 4) { _ in test.store.close() }
        test.store.close()
        #expect(test.store.isClosed)
        #expect(test.store.environment.isClosed)
    }

    @Test func everyOperationAfterCloseThrowsClosedAndWritesNothing() throws {
        let test = try TestStore()
        let store = test.store
        let created = try store.create(vCard: smallCard(1))
        let before = try store.lastPosition()
        let foreign = ForeignReplica()
        store.close()

        let name = created.recordName
        let operations: [(String, () throws -> Void)] = [
            ("create", { _ = try store.create(vCard: smallCard(2)) }),
            ("create(vCards:)", { _ = try store.create(vCards: [smallCard(3), smallCard(4)]) }),
            ("fetch", { _ = try store.fetch(name) }),
            ("fetch(link:)", { _ = try store.fetch(link: created.link) }),
            ("share", { _ = try store.share(name) }),
            ("revoke", { _ = try store.revoke(name) }),
            ("apply", { _ = try store.apply([foreign.created(at: test.clock.now(), ttl: .seconds(600))]) }),
            ("sweep", { _ = try store.sweep() }),
            ("compact", { _ = try store.compact() }),
            ("trim", { _ = try store.trim() }),
            ("verify", { _ = try store.verify() }),
            ("stats", { _ = try store.stats() }),
            ("lastPosition", { _ = try store.lastPosition() }),
            ("events(after:)", { _ = try store.events(after: 0) }),
            ("events(of:)", { _ = try store.events(of: name) }),
            ("commits", { _ = try store.commits() }),
            ("renewIdentity", { _ = try store.renewIdentity() }),
            ("renewIdentityAlone", { _ = try store.renewIdentityAlone() }),
            ("raiseHighWater", { try store.raiseHighWater(through: before) }),
            ("highestCounter", { _ = try store.highestCounter(of: foreign.id) }),
            ("originCounter", { _ = try store.originCounter() }),
            ("cursor", { _ = try store.cursor(of: foreign.id) }),
            ("peers", { _ = try store.peers() }),
            ("replicationBatch", { _ = try store.replicationBatch(after: 0, inEpoch: nil) }),
            ("snapshotBatch", { _ = try store.snapshotBatch(after: 0) }),
            ("recordShown", { try store.recordShown(name) }),
            ("lastShown", { _ = try store.lastShown() }),
            ("handedOff", { _ = try store.handedOff() }),
        ]
        var notRefused: [String] = []
        for (label, operation) in operations {
            do {
                try operation()
                notRefused.append("\(label): returned")
            } catch let error as ShareLogError where error == .closed(path: store.path) {
            } catch {
                notRefused.append("\(label): \(error)")
            }
        }
        #expect(notRefused == [])

        let reopened = try ShareStore.open(at: store.path, options: Self.readOnly)
        defer { reopened.close() }
        #expect(try reopened.lastPosition() == before)
        #expect(try reopened.fetch(name) != .notFound)
        #expect(reopened.replicaID == store.replicaID)
    }

    @Test func everyAsyncOperationAfterCloseThrowsClosed() async throws {
        let test = try TestStore()
        let store = test.store
        let created = try await store.create(vCard: smallCard(1))
        await store.close()
        let closed = ShareLogError.closed(path: store.path)
        await #expect(throws: closed) { try await store.create(vCard: smallCard(2)) }
        await #expect(throws: closed) { try await store.create(vCards: [smallCard(3)]) }
        await #expect(throws: closed) { try await store.revoke(created.recordName) }
        await #expect(throws: closed) { try await store.apply([ForeignReplica().created(at: test.clock.now(), ttl: .seconds(600))]) }
        await #expect(throws: closed) { try await store.sweep() }
        await #expect(throws: closed) { try await store.compact() }
        await #expect(throws: closed) { try await store.verify() }
        // A second close, in either form, returns at once.
        await store.close()
        #expect(store.isClosed)
    }

    @Test func aCloseDuringABurstLetsTheAcknowledgedWritesLandAndRefusesTheRestWhole() throws {
        let test = try TestStore()
        let store = test.store
        let acknowledged = Locked<[RecordName]>([])
        let outcomes = Locked<[String]>([])
        let group = DispatchGroup()
        for writer in 0..<4 {
            DispatchQueue.global().async(group: group) {
                // Bounded by a deadline, so a close that refuses nothing
                // fails the test instead of writing forever.
                let deadline = Deadline("writer \(writer) was refused by the close", timeout: .seconds(30))
                var round = 0
                while !deadline.hasPassed {
                    round += 1
                    do {
                        // Three shares per commit: all or none.
                        let batch = try store.create(vCards: (0..<3).map { smallCard(writer * 100_000 + round * 3 + $0) })
                        acknowledged.withLock { $0 += batch.map(\.recordName) }
                    } catch let error as ShareLogError where error == .closed(path: store.path) {
                        outcomes.withLock { $0.append("closed") }
                        return
                    } catch {
                        outcomes.withLock { $0.append("\(error)") }
                        return
                    }
                }
                outcomes.withLock { $0.append("never refused") }
            }
        }
        try Deadline.block(until: "some writes were acknowledged") { acknowledged.withLock { $0.count } >= 60 }
        store.close()
        #expect(group.wait(timeout: .now() + 60) == .success)
        #expect(outcomes.withLock { $0 } == Array(repeating: "closed", count: 4))

        let reopened = try ShareStore.open(at: store.path, options: Self.readOnly)
        defer { reopened.close() }
        let landed = acknowledged.withLock { $0 }
        // Every commit acknowledged is there, and nothing else is: a write
        // refused by the close wrote nothing, and none landed in part.
        #expect(try reopened.lastPosition() == UInt64(landed.count))
        #expect(landed.count % 3 == 0)
        #expect(try landed.allSatisfy { try reopened.fetch($0) != .notFound })
    }

    @Test func theDirectoryOpensAgainAtOnceWithOtherOptions() throws {
        let test = try TestStore()
        let path = test.store.path
        _ = try test.store.create(vCard: smallCard(1))
        // Still referenced, but closed: the read-only open needs the
        // environment closed, which the reference alone would prevent.
        test.store.close()
        let reader = try ShareStore.open(at: path, options: Self.readOnly)
        #expect(try reader.lastPosition() == 1)
        reader.close()
        let writer = try ShareStore.open(at: path)
        defer { writer.close() }
        _ = try writer.create(vCard: smallCard(2))
        #expect(try writer.lastPosition() == 2)
    }

    @Test func instancesSharingADirectoryCloseOneByOne() throws {
        let test = try TestStore()
        let path = test.store.path
        var options = ShareStore.Options()
        options.environment.durability = .noSync
        options.clock = test.clock
        let second = try ShareStore.open(at: path, options: options)
        test.store.close()
        // The other instance goes on; the environment closes with it.
        _ = try second.create(vCard: smallCard(1))
        #expect(!second.environment.isClosed)
        #expect(throws: ShareLogError.storage(.alreadyOpen)) { try ShareStore.open(at: path, options: Self.readOnly) }
        second.close()
        #expect(second.environment.isClosed)
        let reader = try ShareStore.open(at: path, options: Self.readOnly)
        defer { reader.close() }
        #expect(try reader.lastPosition() == 1)
    }

    @Test func aClosedInstanceNoLongerCountsAsAWriterOfTheStore() throws {
        let test = try TestStore()
        var options = ShareStore.Options()
        options.environment.durability = .noSync
        let second = try ShareStore.open(at: test.store.path, options: options)
        defer { second.close() }
        #expect(throws: ShareLogError.openElsewhere(path: second.path)) { try second.renewIdentityAlone() }
        test.store.close()
        let renewal = try second.renewIdentityAlone()
        #expect(second.replicaID == renewal.replica)
    }

    @Test func commitsStreamsFinishAtClose() async throws {
        let test = try TestStore()
        let store = test.store
        let positions = try store.commits()
        let seen = Locked<[UInt64]>([])
        let finished = Locked(false)
        let reader = Task {
            for await position in positions { seen.withLock { $0.append(position) } }
            finished.withLock { $0 = true }
        }
        _ = try await store.create(vCard: smallCard(1))
        try await Deadline.wait(until: "the commit was announced") { seen.withLock { $0.last } == 1 }
        await store.close()
        try await Deadline.wait(until: "the commits() stream finished") { finished.withLock { $0 } }
        await reader.value
        #expect(throws: ShareLogError.closed(path: store.path)) { try store.commits() }
    }

    /// A read-only open, which needs the store's environment closed by any
    /// open for writing in this process.
    private static var readOnly: ShareStore.Options {
        var options = ShareStore.Options()
        options.environment.readOnly = true
        return options
    }
}
