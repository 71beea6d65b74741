import Foundation
import TestSupport
import Testing
@testable import ShareLog

/// The retention horizon (docs/ENGINE.md "Retention"): shares that ended
/// longer ago than the retention are forgotten whole, the log keeps its
/// gaps, verify accepts them, and a peer behind them takes a snapshot.
@Suite struct TrimTests {
    static let day: Int64 = 24 * 3600

    @Test func aShareEndedBeyondTheRetentionIsForgottenWholeAndOthersStay() throws {
        let test = try TestStore()
        let start = test.clock.now()
        let revoked = try test.store.create(vCard: smallCard(1), ttl: .seconds(3600))
        let expired = try test.store.create(vCard: smallCard(2), ttl: .seconds(3600))
        let recent = try test.store.create(vCard: smallCard(3), ttl: .seconds(30 * 24 * 3600))
        try test.store.revoke(revoked.recordName)
        // A second revocation from a peer, and a losing rival creation: every entry of the name must go.
        let peer = ForeignReplica()
        try test.store.apply([peer.event(.shareExpired(ShareExpired(recordName: revoked.recordName, at: start.advanced(by: .seconds(5)), reason: .revoked)))])
        let rivalOrigin = ReplicaID(uuid: UUID(uuid: (0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x4f, 0xff, 0xbf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff)))
        try test.store.apply([Event(id: EventID(origin: rivalOrigin, counter: 1), kind: .shareCreated(ShareCreated(
            recordName: expired.recordName, vCard: smallCard(9), createdAt: start, expiresAt: start.advanced(by: .seconds(600)))))])
        test.clock.advance(by: .seconds(3601))
        try test.store.sweep()
        try test.store.compact()
        let before = try test.store.stats()
        #expect(before.events == 7)
        // 59 days on, nothing ended 60 days ago: nothing goes.
        #expect(try test.store.trim(at: start.advanced(by: .seconds(59 * Self.day))).shares == 0)
        // 61 days on, the revoked and the expired share go, with all 6 of their entries; the recent one has not ended 60 days ago.
        let report = try test.store.trim(at: start.advanced(by: .seconds(61 * Self.day)))
        #expect(report.shares == 2)
        #expect(report.entries == 6)
        #expect(try test.store.stats().events == 1)
        #expect(try test.store.fetch(revoked.recordName) == .notFound)
        #expect(try test.store.fetch(expired.recordName) == .notFound)
        #expect(try test.store.events(after: 0).map(\.position) == [3])
        #expect(try test.store.stats().expired == 0 && test.store.stats().live == 1)
        #expect(try test.store.verify().isConsistent)
        _ = recent
    }

    @Test func aPendingShareWaitsForItsSweepAndALiveOneIsNeverTrimmed() throws {
        let test = try TestStore()
        let start = test.clock.now()
        let due = try test.store.create(vCard: smallCard(1), ttl: .seconds(60))
        #expect(try test.store.trim(at: start.advanced(by: .seconds(90 * Self.day))).shares == 0)
        #expect(try test.store.stats().events == 1)
        try test.store.sweep(at: start.advanced(by: .seconds(90 * Self.day)))
        #expect(try test.store.trim(at: start.advanced(by: .seconds(90 * Self.day))).shares == 1)
        #expect(try test.store.fetch(due.recordName, at: start.advanced(by: .seconds(90 * Self.day))) == .notFound)
    }

    @Test func verifyTellsATrimsGapsFromDamage() throws {
        let test = try TestStore()
        let start = test.clock.now()
        let old = try test.store.create(vCard: smallCard(1), ttl: .seconds(60))
        _ = try test.store.create(vCard: smallCard(2), ttl: .seconds(30 * 24 * 3600))
        try test.store.revoke(old.recordName)
        try test.store.trim(at: start.advanced(by: .seconds(61 * Self.day)))
        #expect(try test.store.events(after: 0).map(\.position) == [2])
        #expect(try test.store.verify().isConsistent)
        // A gap after the trimmed positions is damage all the same.
        _ = try test.store.create(vCard: smallCard(3))
        _ = try test.store.create(vCard: smallCard(4))
        _ = try test.store.environment.write { txn in try txn.delete(Key.sequence(4), in: test.store.schema.log) }
        #expect(try test.store.verify().positionGaps == [4])
    }

    @Test func aCursorBehindTheTrimGetsSnapshotRequiredAndTheSnapshotIsWhatIsLeft() throws {
        let test = try TestStore()
        let start = test.clock.now()
        let old = try test.store.create(vCard: smallCard(1))
        let kept = try test.store.create(vCard: smallCard(2), ttl: .seconds(30 * 24 * 3600))
        try test.store.revoke(old.recordName)
        let epoch = test.store.epoch
        try test.store.trim(at: start.advanced(by: .seconds(61 * Self.day)))
        #expect(throws: ShareLogError.snapshotRequired(.behindHorizon(position: 1, horizon: 3))) {
            try test.store.replicationBatch(after: 1, inEpoch: epoch)
        }
        #expect(throws: ShareLogError.snapshotRequired(.behindHorizon(position: 0, horizon: 3))) {
            try test.store.replicationBatch(after: 0, inEpoch: nil)
        }
        let snapshot = try test.store.snapshotBatch(after: 0)
        #expect(snapshot.events.map(\.recordName) == [kept.recordName])
        // Entry 3 (the revocation) is gone too: the snapshot reaches through it, to the log's end.
        #expect(snapshot.through == 3 && snapshot.lastPosition == 3)
        // A peer that took the snapshot and resumes after 3 is served.
        #expect(try test.store.replicationBatch(after: 3, inEpoch: epoch).events.isEmpty)
    }

    @Test func aCreationArrivingAfterItsShareWasForgottenStaysExpired() throws {
        let test = try TestStore()
        let start = test.clock.now()
        let peer = ForeignReplica(), name = RecordName.random()
        let creation = peer.created(name, at: start, ttl: .seconds(30 * 24 * 3600))
        try test.store.apply([creation, peer.event(.shareExpired(ShareExpired(recordName: name, at: start.advanced(by: .seconds(10)), reason: .revoked)))])
        let later = start.advanced(by: .seconds(61 * Self.day))
        #expect(try test.store.trim(at: later).shares == 1)
        // A peer that was away sends the creation again.
        try test.store.apply([creation])
        #expect(try test.store.fetch(name, at: later) == .expired(at: start.advanced(by: .seconds(30 * Self.day)), reason: .ttl))
    }

    @Test func ourOwnTrimmedEventsComingBackAreSkippedNotConflicts() throws {
        let test = try TestStore()
        let start = test.clock.now()
        let share = try test.store.create(vCard: smallCard(1))
        let echo = try #require(try test.store.events(after: 0).first?.event)
        try test.store.revoke(share.recordName)
        try test.store.trim(at: start.advanced(by: .seconds(61 * Self.day)))
        #expect(try test.store.apply([echo]) == ApplyReport(applied: 0, duplicates: 1))
        #expect(try test.store.stats().events == 0)
    }
}
