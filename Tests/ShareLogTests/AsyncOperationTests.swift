import Dispatch
import Foundation
import Synchronization
import Testing
import TestSupport
@testable import ShareLog
import TestTraits

/// The async forms never hold a thread of Swift's cooperative pool while
/// they wait for the disk or for LMDB's write lock.
@Suite(.hangDeadline) struct AsyncOperationTests {
    @Test func asyncWritesWaitingOnTheWriterLeaveTheCooperativePoolFree() async throws {
        let test = try TestStore()
        let store = test.store
        let replica = ForeignReplica()
        let now = test.clock.now()
        // Another thread holds LMDB's writer, so every write queues behind it.
        let holding = Flag()
        let release = DispatchSemaphore(value: 0)
        Thread {
            _ = try? store.environment.write { _ in
                holding.set()
                release.wait()
            }
        }.start()
        try await Deadline.wait(until: "the writer is held") { holding.isSet }

        // Far more waiting writes than the pool has threads (one per core).
        let events = (0..<16).map { _ in replica.created(at: now, ttl: .seconds(3600)) }
        let writes = events.map { event in Task { try await store.apply([event]) } }
        // A task started after them runs only if a pool thread is free.
        let ran = Flag()
        Task { ran.set() }
        // Watched from a thread outside the pool, which then lets the writer go
        // whatever happened, so a starved pool fails the test instead of hanging it.
        let ranWhileHeld = Flag()
        let watched = Flag()
        Thread {
            if (try? Deadline.block(until: "a new task runs", timeout: .seconds(20)) { ran.isSet }) != nil {
                ranWhileHeld.set()
            }
            release.signal()
            watched.set()
        }.start()
        try await Deadline.wait(until: "the watcher is done", timeout: .seconds(60)) { watched.isSet }

        let poolWasFree = ranWhileHeld.isSet
        #expect(poolWasFree, "16 queued async writes held every thread of the cooperative pool")
        var applied = 0
        for write in writes { applied += try await write.value.applied }
        #expect(applied == 16)
        #expect(try await store.verify().isConsistent)
    }

    @Test func theAsyncFormsDoWhatTheBlockingFormsDo() async throws {
        let test = try TestStore()
        let store = test.store
        let start = test.clock.now()
        let kept = try await store.create(vCard: smallCard(1), ttl: .seconds(600))
        let revoked = try await store.create(vCard: smallCard(2), ttl: .seconds(600))
        let swept = try await store.create(vCards: [smallCard(3)], ttl: .seconds(60))
        let foreign = ForeignReplica().created(at: start, ttl: .seconds(600))
        #expect(try await store.apply([foreign, foreign]) == ApplyReport(applied: 1, duplicates: 1))
        #expect(try await store.revoke(revoked.recordName) == ShareExpired(recordName: revoked.recordName, at: start, reason: .revoked))
        let sweptAt = start.advanced(by: .seconds(120))
        #expect(try await store.sweep(at: sweptAt).expired == 1)
        #expect(try await store.compact().redacted == 2)
        let report = try await store.verify()
        #expect(report.isConsistent)
        #expect(report.events == 6)
        #expect(try store.fetch(kept.recordName, at: sweptAt) == .live(Share(
            recordName: kept.recordName, vCard: smallCard(1), createdAt: start, expiresAt: start.advanced(by: .seconds(600)))))
        #expect(try store.fetch(swept[0].recordName, at: sweptAt) == .expired(at: start.advanced(by: .seconds(60)), reason: .ttl))
    }

    @Test func theAsyncAppliesCommitTheirCursorWithTheEvents() async throws {
        let test = try TestStore()
        let store = test.store
        let start = test.clock.now()
        let peer = ForeignReplica()
        let epoch = Epoch.random()
        let first = peer.created(at: start, ttl: .seconds(600)), second = peer.created(at: start, ttl: .seconds(600))
        let at10 = PeerCursor(peer: peer.id, epoch: epoch, position: 10, lastSeen: start)
        #expect(try await store.apply([first], advancing: at10) == ApplyReport(applied: 1, duplicates: 0))
        #expect(try store.cursor(of: peer.id) == at10)
        // A snapshot's end moves the cursor back; advancing never would.
        let at4 = PeerCursor(peer: peer.id, epoch: epoch, position: 4, lastSeen: start)
        #expect(try await store.apply([first, second], advancing: at4) == ApplyReport(applied: 1, duplicates: 1))
        #expect(try store.cursor(of: peer.id)?.position == 10)
        #expect(try await store.apply([], resetting: at4) == ApplyReport(applied: 0, duplicates: 0))
        #expect(try store.cursor(of: peer.id) == at4)
        #expect(try store.stats(at: start).events == 2)
    }
}

/// A flag threads set once and read.
private final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .releasing) }
    var isSet: Bool { value.load(ordering: .acquiring) }
}
