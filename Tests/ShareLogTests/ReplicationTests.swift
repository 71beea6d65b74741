import Foundation
import TestSupport
import Testing
@testable import ShareLog

/// What sync needs of the engine (docs/SYNC.md "What the engine gives
/// sync"): cursors committed with their batch, the epoch read back, the
/// boundary checks on a peer's events, and the log as a peer reads it.
@Suite struct ReplicationTests {
    // MARK: cursors

    @Test func aBatchAndItsCursorCommitTogether() throws {
        let test = try TestStore()
        let peer = ForeignReplica(), epoch = Epoch.random()
        let events = (0..<3).map { _ in peer.created(at: test.clock.now(), ttl: .seconds(3600)) }
        let cursor = PeerCursor(peer: peer.id, epoch: epoch, position: 7, lastSeen: test.clock.now())
        #expect(try test.store.apply(events, advancing: cursor) == ApplyReport(applied: 3, duplicates: 0))
        #expect(try test.store.cursor(of: peer.id) == cursor)
        #expect(try test.store.peers() == [cursor])
        #expect(try test.store.stats().live == 3)
    }

    @Test func aRefusedBatchMovesNeitherTheLogNorTheCursor() throws {
        let test = try TestStore()
        let peer = ForeignReplica(), epoch = Epoch.random()
        let first = PeerCursor(peer: peer.id, epoch: epoch, position: 2, lastSeen: test.clock.now())
        try test.store.apply([peer.created(at: test.clock.now(), ttl: .seconds(3600))], advancing: first)
        let good = peer.created(at: test.clock.now(), ttl: .seconds(3600))
        let tooLong = peer.created(at: test.clock.now(), ttl: .seconds(31 * 24 * 3600))
        #expect(throws: ShareLogError.self) {
            try test.store.apply([good, tooLong], advancing: PeerCursor(peer: peer.id, epoch: epoch, position: 9, lastSeen: test.clock.now()))
        }
        #expect(try test.store.cursor(of: peer.id) == first)
        #expect(try test.store.stats().events == 1)
    }

    @Test func aLateBatchNeverMovesACursorBackWithinAnEpoch() throws {
        let test = try TestStore()
        let peer = ReplicaID.random(), epoch = Epoch.random(), later = test.clock.now().advanced(by: .seconds(5))
        try test.store.apply([], advancing: PeerCursor(peer: peer, epoch: epoch, position: 40, lastSeen: test.clock.now()))
        try test.store.apply([], advancing: PeerCursor(peer: peer, epoch: epoch, position: 12, lastSeen: later))
        #expect(try test.store.cursor(of: peer) == PeerCursor(peer: peer, epoch: epoch, position: 40, lastSeen: later))
        // A new epoch (the peer was wiped) starts the cursor again.
        let reborn = Epoch.random()
        try test.store.apply([], advancing: PeerCursor(peer: peer, epoch: reborn, position: 3, lastSeen: later))
        #expect(try test.store.cursor(of: peer) == PeerCursor(peer: peer, epoch: reborn, position: 3, lastSeen: later))
    }

    @Test func aSnapshotsEndSetsTheCursorBackWithinAnEpoch() throws {
        let test = try TestStore()
        let peer = ReplicaID.random(), epoch = Epoch.random(), later = test.clock.now().advanced(by: .seconds(5))
        try test.store.apply([], advancing: PeerCursor(peer: peer, epoch: epoch, position: 100, lastSeen: test.clock.now()))
        // The peer was restored in place to position 50 and sent a snapshot
        // of all it holds: the next pull must ask from 50, not from 100.
        try test.store.apply([], resetting: PeerCursor(peer: peer, epoch: epoch, position: 50, lastSeen: later))
        #expect(try test.store.cursor(of: peer) == PeerCursor(peer: peer, epoch: epoch, position: 50, lastSeen: later))
    }

    // MARK: the boundary

    @Test func aPeersEventsPassTheChecksALocalWritePasses() throws {
        let test = try TestStore()
        let peer = ForeignReplica(), now = test.clock.now()
        let tooShort = peer.created(at: now, ttl: .seconds(59))
        let tooLong = peer.created(at: now, ttl: .seconds(30 * 24 * 3600 + 1))
        let notACard = peer.created(vCard: Array("not a card".utf8), at: now, ttl: .seconds(3600))
        let oversized = peer.event(.unknown(code: 77, flags: 0, payload: Array(repeating: 1, count: 1_048_576 + 4096)))
        let refused: [(Event, InvalidEventReason)] = [
            (tooShort, .lifetimeOutOfRange(try #require(tooShort.recordName), seconds: 59)),
            (tooLong, .lifetimeOutOfRange(try #require(tooLong.recordName), seconds: 2_592_001)),
            (notACard, .invalidCard(try #require(notACard.recordName), .missingBegin)),
            (Event(id: EventID(origin: peer.id, counter: 0), kind: .shareExpired(ShareExpired(recordName: .random(), at: now, reason: .ttl))),
             .reservedCounter),
            (oversized, .tooLarge(encodedBytes: EventCodec.encode(oversized).count, limit: 1_052_672)),
        ]
        for (event, reason) in refused {
            #expect(throws: ShareLogError.invalidEvent(event.id, reason: reason)) {
                try test.store.apply([peer.created(at: now, ttl: .seconds(3600)), event])
            }
        }
        #expect(try test.store.stats().events == 0)
        // The shortest and longest lives a local create allows pass.
        #expect(try test.store.apply([peer.created(at: now, ttl: .seconds(60)), peer.created(at: now, ttl: .seconds(30 * 24 * 3600))]).applied == 2)
    }

    @Test func anEventClaimingThisReplicasIDThatItNeverMadeIsRefused() throws {
        let test = try TestStore()
        let mine = try test.store.create(vCard: smallCard())
        let echo = try #require(try test.store.events(after: 0).first?.event)
        // Our own event coming back from a peer is a duplicate, not an error.
        #expect(try test.store.apply([echo]) == ApplyReport(applied: 0, duplicates: 1))
        let claimed = Event(id: EventID(origin: test.store.replicaID, counter: 2), kind: .shareExpired(
            ShareExpired(recordName: mine.recordName, at: test.clock.now(), reason: .revoked)))
        #expect(throws: ShareLogError.ownOriginConflict(claimed.id, madeHere: 1)) { try test.store.apply([claimed]) }
        // Nothing written, and this replica's next event is still its 2nd.
        #expect(try test.store.stats().events == 1)
        try test.store.revoke(mine.recordName)
        #expect(try test.store.events(after: 1).map(\.event.id) == [EventID(origin: test.store.replicaID, counter: 2)])
    }

    // MARK: one TTL end per share

    @Test func replicasThatSweepTheSameShareLogOneTTLEnd() throws {
        let a = try TestStore(), b = try TestStore()
        let share = try a.store.create(vCard: smallCard(), ttl: .seconds(60))
        try b.store.apply(try a.store.events(after: 0).map(\.event))
        a.clock.advance(by: .seconds(61))
        b.clock.advance(by: .seconds(61))
        #expect(try a.store.sweep().expired == 1)
        #expect(try b.store.sweep().expired == 1)
        // The end each logged is the same event: the record name, counter 0, at expiresAt.
        let end = Event(
            id: EventID(origin: ReplicaID(uuid: share.recordName.uuid), counter: 0),
            kind: .shareExpired(ShareExpired(recordName: share.recordName, at: share.expiresAt, reason: .ttl)))
        #expect(try a.store.events(after: 1).map(\.event) == [end])
        #expect(try b.store.events(after: 1).map(\.event) == [end])
        #expect(try a.store.apply(try b.store.events(after: 0).map(\.event)) == ApplyReport(applied: 0, duplicates: 2))
        #expect(try b.store.apply(try a.store.events(after: 0).map(\.event)) == ApplyReport(applied: 0, duplicates: 2))
    }

    @Test func aPeersTTLEndSparesTheSweepHere() throws {
        let a = try TestStore(), b = try TestStore()
        _ = try a.store.create(vCard: smallCard(), ttl: .seconds(60))
        try b.store.apply(try a.store.events(after: 0).map(\.event))
        a.clock.advance(by: .seconds(61))
        b.clock.advance(by: .seconds(61))
        try a.store.sweep()
        #expect(try b.store.apply(try a.store.events(after: 1).map(\.event)).applied == 1)
        #expect(try b.store.sweep().expired == 0)
        #expect(try b.store.stats().events == 2)
        #expect(try b.store.verify().isConsistent)
    }

    // MARK: a creation without its card

    @Test func aCreationArrivingWithoutItsCardReadsEndedUntilItsRevocationSaysWhy() throws {
        let test = try TestStore()
        let peer = ForeignReplica(), name = RecordName.random(), now = test.clock.now()
        let expiresAt = now.advanced(by: .seconds(3600))
        try test.store.apply([peer.event(.shareCreated(ShareCreated(recordName: name, vCard: nil, createdAt: now, expiresAt: expiresAt)))])
        // Ended where it came from: never pending, never swept, counted expired.
        #expect(try test.store.fetch(name) == .expired(at: expiresAt, reason: .ttl))
        #expect(try test.store.stats().live == 0)
        #expect(try test.store.stats().expired == 1)
        #expect(try test.contents(of: \.expiry).isEmpty)
        let revokedAt = now.advanced(by: .seconds(10))
        try test.store.apply([peer.event(.shareExpired(ShareExpired(recordName: name, at: revokedAt, reason: .revoked)))])
        #expect(try test.store.fetch(name) == .expired(at: revokedAt, reason: .revoked))
        #expect(try test.store.stats().expired == 1)
        #expect(try test.store.verify().isConsistent)
    }

    @Test func aRivalHoldingItsCardRevivesAShareWhoseRedactedCreationLost() throws {
        let test = try TestStore()
        let one = ForeignReplica(), other = ForeignReplica()
        let (small, large) = one.id < other.id ? (one, other) : (other, one)
        let name = RecordName.random(), now = test.clock.now()
        // The larger id arrives redacted (a losing rival, redacted where it lost), then the winner.
        try test.store.apply([large.event(.shareCreated(ShareCreated(recordName: name, vCard: nil, createdAt: now, expiresAt: now.advanced(by: .seconds(600)))))])
        #expect(try test.store.fetch(name) == .expired(at: now.advanced(by: .seconds(600)), reason: .ttl))
        try test.store.apply([small.created(name, vCard: smallCard(5), at: now, ttl: .seconds(900))])
        #expect(try test.store.fetch(name) == .live(Share(recordName: name, vCard: smallCard(5), createdAt: now, expiresAt: now.advanced(by: .seconds(900)))))
        #expect(try test.store.stats().live == 1)
        #expect(try test.store.verify().isConsistent)
    }

    // MARK: reading for a peer

    @Test func aCursorFromAnotherEpochOrPastTheLogGetsSnapshotRequired() throws {
        let test = try TestStore()
        _ = try test.store.create(vCards: [smallCard(1), smallCard(2)])
        let stale = Epoch.random()
        #expect(throws: ShareLogError.snapshotRequired(.epochUnknown(cursor: stale, current: test.store.epoch))) {
            try test.store.replicationBatch(after: 1, inEpoch: stale)
        }
        #expect(throws: ShareLogError.snapshotRequired(.cursorAhead(position: 3, lastPosition: 2))) {
            try test.store.replicationBatch(after: 3, inEpoch: test.store.epoch)
        }
        let fresh = try test.store.replicationBatch(after: 0, inEpoch: nil)
        #expect(fresh.events.count == 2 && fresh.through == 2 && fresh.lastPosition == 2)
        let rest = try test.store.replicationBatch(after: 1, inEpoch: test.store.epoch)
        #expect(rest.events.map(\.id) == [EventID(origin: test.store.replicaID, counter: 2)])
    }

    @Test func aPeerGetsNoCardOfAnEndedShareAndNeverAnEndWithoutItsReason() throws {
        let test = try TestStore()
        let live = try test.store.create(vCard: smallCard(1))
        let revoked = try test.store.create(vCard: smallCard(2))
        let peer = ForeignReplica()
        try test.store.apply([peer.created(at: test.clock.now(), ttl: .seconds(3600))])
        try test.store.revoke(revoked.recordName)
        // Entries: 1 live, 2 revoked, 3 the peer's, 4 the revocation.
        let batch = try test.store.replicationBatch(after: 0, inEpoch: nil, limit: 2, excludingOrigin: peer.id)
        #expect(batch.through == 2)
        let sent = batch.events.map { event -> (EventID, [UInt8]?) in
            guard case .shareCreated(let created) = event.kind else { return (event.id, nil) }
            return (event.id, created.vCard)
        }
        let me = test.store.replicaID
        #expect(sent.map(\.0) == [EventID(origin: me, counter: 1), EventID(origin: me, counter: 2), EventID(origin: me, counter: 3)])
        #expect(sent.map(\.1) == [smallCard(1), nil, nil])
        // The peer's own event is skipped; the revocation comes again at its
        // own place in the log, where the peer skips it as a duplicate.
        let next = try test.store.replicationBatch(after: batch.through, inEpoch: test.store.epoch, excludingOrigin: peer.id)
        #expect(next.events.map(\.id) == [EventID(origin: me, counter: 3)])
        #expect(next.through == 4)
        #expect(try test.store.fetch(live.recordName) == .live(Share(
            recordName: live.recordName, vCard: smallCard(1), createdAt: live.createdAt, expiresAt: live.expiresAt)))
    }

    @Test func oneSharesEventsComeFromTheIndexes() throws {
        let test = try TestStore()
        let live = try test.store.create(vCard: smallCard(1), ttl: .seconds(60))
        let revoked = try test.store.create(vCard: smallCard(2))
        try test.store.revoke(revoked.recordName)
        let me = test.store.replicaID
        guard case .shareCreated(let created)? = try test.store.events(of: live.recordName).first?.kind else {
            Issue.record("no creation")
            return
        }
        #expect(created.vCard == smallCard(1))
        #expect(try test.store.events(of: revoked.recordName).map(\.id) == [EventID(origin: me, counter: 2), EventID(origin: me, counter: 3)])
        #expect(try test.store.events(of: revoked.recordName).first.map(Self.card) == .some(nil))
        #expect(try test.store.events(of: .random()) == [])
        // Expired by the clock, swept or not: the card stays home.
        test.clock.advance(by: .seconds(60))
        #expect(try test.store.events(of: live.recordName).map(Self.card) == [nil])
        try test.store.sweep()
        #expect(try test.store.events(of: live.recordName).map(\.id) == [EventID(origin: me, counter: 1), .ttlEnd(of: live.recordName)])
    }

    private static func card(_ event: Event) -> [UInt8]? {
        guard case .shareCreated(let created) = event.kind else { return nil }
        return created.vCard
    }
}
