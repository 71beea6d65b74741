import Foundation
import SampleCards
import Testing
import TestTraits
@testable import ShareLog

/// `ShareStore.revoke` at the edges: at the expiry instant, for a share
/// another replica made, and what is left of the card afterwards.
///
/// Times are written out by hand: `TestStore`'s clock starts at
/// 1_800_000_000_000 ms (2027-01-15T08:00:00Z).
@Suite(.ownThread) struct RevokeTests {
    static let start = Timestamp(milliseconds: 1_800_000_000_000)
    static let anHourLater = Timestamp(milliseconds: 1_800_003_600_000)

    /// ENGINE.md: a share is expired from its `expiresAt` on, swept or not.
    /// So at that very millisecond there is nothing left to revoke: the
    /// revoke is refused as expired (ttl), writes nothing, and the sweep
    /// still records the end as a ttl expiry at `expiresAt`.
    @Test func aRevokeExactlyAtExpiresAtIsRefusedAsExpiredAndWritesNothing() throws {
        let test = try TestStore()
        let created = try test.store.create(vCard: smallCard(), ttl: .seconds(3600))
        #expect(created.expiresAt == Self.anHourLater)
        test.clock.advance(by: .seconds(3600))
        #expect(throws: ShareLogError.expired(created.recordName, at: Self.anHourLater, reason: .ttl)) {
            try test.store.revoke(created.recordName)
        }
        let stats = try test.store.stats()
        #expect(stats.events == 1)
        #expect(stats.live == 1)
        #expect(stats.due == 1)
        #expect(stats.expired == 0)
        #expect(try test.store.sweep().expired == 1)
        let ended = try #require(try test.store.events(after: 1).first)
        #expect(ended.event.kind == .shareExpired(ShareExpired(recordName: created.recordName, at: Self.anHourLater, reason: .ttl)))
        #expect(try test.store.fetch(created.recordName) == .expired(at: Self.anHourLater, reason: .ttl))
    }

    @Test func aRevokeOneMillisecondBeforeExpiresAtEndsTheShareAsRevoked() throws {
        let test = try TestStore()
        let created = try test.store.create(vCard: smallCard(), ttl: .seconds(3600))
        test.clock.advance(by: .milliseconds(3_599_999))
        let justBefore = Timestamp(milliseconds: 1_800_003_599_999)
        #expect(try test.store.revoke(created.recordName) == ShareExpired(recordName: created.recordName, at: justBefore, reason: .revoked))
        #expect(try test.store.fetch(created.recordName, at: Self.anHourLater) == .expired(at: justBefore, reason: .revoked))
        // Off the expiry index: a sweep at the old expiry has nothing to do.
        #expect(try test.store.sweep(at: Self.anHourLater).expired == 0)
        #expect(try test.store.stats().events == 2)
    }

    /// A revoke of a share synced from another replica is an event of this
    /// replica (its id, its first origin sequence). The creator's own later
    /// expiry, arriving afterwards, does not move the end: the earlier wins.
    @Test func aShareAnotherReplicaCreatedIsRevokedHereByThisReplicasEvent() throws {
        let test = try TestStore()
        let other = ForeignReplica()
        let name = RecordName.random()
        let creation = other.created(name, vCard: smallCard(5), at: Self.start, ttl: .seconds(3600))
        #expect(try test.store.apply([creation]) == ApplyReport(applied: 1, duplicates: 0))
        test.clock.advance(by: .seconds(600))
        let revokedAt = Timestamp(milliseconds: 1_800_000_600_000)
        let revoked = try test.store.revoke(name)
        #expect(revoked == ShareExpired(recordName: name, at: revokedAt, reason: .revoked))
        #expect(try test.store.fetch(name) == .expired(at: revokedAt, reason: .revoked))
        let log = try test.store.events(after: 0)
        #expect(log.map(\.position) == [1, 2])
        #expect(log.first?.event == creation)
        #expect(log.last?.event == Event(id: EventID(origin: test.store.replicaID, counter: 1), kind: .shareExpired(revoked)))
        var stats = try test.store.stats()
        #expect((stats.live, stats.expired, stats.pendingRedactions) == (0, 1, 1))

        let creatorsExpiry = other.event(.shareExpired(ShareExpired(recordName: name, at: Self.anHourLater, reason: .ttl)))
        #expect(try test.store.apply([creatorsExpiry]) == ApplyReport(applied: 1, duplicates: 0))
        #expect(try test.store.fetch(name) == .expired(at: revokedAt, reason: .revoked))

        #expect(try test.store.compact().redacted == 1)
        let redacted = try #require(try test.store.events(after: 0).first)
        #expect(redacted.event.id == creation.id)
        #expect(redacted.event.kind == .shareCreated(ShareCreated(recordName: name, vCard: nil, createdAt: Self.start, expiresAt: Self.anHourLater)))
        stats = try test.store.stats()
        #expect((stats.live, stats.expired, stats.pendingRedactions, stats.events) == (0, 1, 0, 3))
        #expect(try test.store.verify().isConsistent)
    }

    /// The creator learns of the revoke by syncing this replica's log.
    @Test func theCreatingReplicaSeesTheRevokeOnceItSyncs() throws {
        let creator = try TestStore(label: "creator")
        let revoker = try TestStore(label: "revoker")
        let created = try creator.store.create(vCard: smallCard(9), ttl: .seconds(3600))
        try revoker.store.apply(creator.store.events(after: 0).map(\.event))
        revoker.clock.advance(by: .seconds(60))
        let revoked = try revoker.store.revoke(created.recordName)
        let report = try creator.store.apply(revoker.store.events(after: 0).map(\.event))
        #expect(report == ApplyReport(applied: 1, duplicates: 1))
        #expect(try creator.store.fetch(created.recordName) == .expired(at: Timestamp(milliseconds: 1_800_000_060_000), reason: .revoked))
        #expect(throws: ShareLogError.expired(created.recordName, at: revoked.at, reason: .revoked)) {
            try creator.store.revoke(created.recordName)
        }
        #expect(try creator.store.stats().pendingRedactions == 1)
    }

    /// docs/ENGINE.md's privacy guarantee, reached by a revoke rather than
    /// a time to live: after the revoke, a sweep and a compaction, the
    /// card's bytes are in no file of the store, and later writes do not
    /// bring them back. Covers a card stored inline and one on overflow
    /// pages, made here and made by another replica.
    @Test(arguments: [(nil, false), (60_000, false), (nil, true), (60_000, true)] as [(Int?, Bool)])
    func afterRevokeSweepAndCompactionNoByteOfTheCardRemains(photoBytes: Int?, madeElsewhere: Bool) throws {
        let test = try TestStore(durable: true)
        let marker = "Zyxwvut-Revoked-\(UUID().uuidString)"
        var card = SampleCard.make(index: 1, photoBytes: photoBytes)
        card.insert(contentsOf: Array("NOTE:\(marker)\r\n".utf8), at: card.count - "END:VCARD\r\n".utf8.count)
        let name: RecordName
        if madeElsewhere {
            name = .random()
            try test.store.apply([ForeignReplica().created(name, vCard: card, at: Self.start, ttl: .seconds(86_400))])
        } else {
            name = try test.store.create(vCard: card, ttl: .seconds(86_400)).recordName
        }
        // Neighbours, some due at the sweep, so pages are shared and rewritten.
        for index in 2..<40 { _ = try test.store.create(vCard: smallCard(index), ttl: .seconds(index.isMultiple(of: 2) ? 60 : 86_400)) }
        #expect(try test.rawFiles().filter { $0.value.range(of: Data(marker.utf8)) != nil }.keys.sorted() == ["data.mdb"])
        test.clock.advance(by: .seconds(30))
        try test.store.revoke(name)
        test.clock.advance(by: .seconds(30))
        #expect(try test.store.sweep().expired == 19)
        #expect(try test.store.compact().redacted == 20)
        #expect(try test.store.fetch(name) == .expired(at: Timestamp(milliseconds: 1_800_000_030_000), reason: .revoked))
        for (file, bytes) in try test.rawFiles() {
            #expect(bytes.range(of: Data(marker.utf8)) == nil, "\(file) still holds the revoked card")
        }
        for index in 40..<80 { _ = try test.store.create(vCard: smallCard(index)) }
        try test.store.sweep(at: test.clock.now().advanced(by: .seconds(86_400)))
        for (file, bytes) in try test.rawFiles() {
            #expect(bytes.range(of: Data(marker.utf8)) == nil, "\(file) holds the revoked card again after later writes")
        }
        #expect(try test.store.verify().isConsistent)
    }
}
