import Foundation
import Testing
@testable import ShareLog

/// The store's behaviour when "now" misbehaves: a clock set back between
/// two operations, and a creation stamped in this replica's future by
/// another replica's clock.
///
/// The store never judges a clock: each operation stamps what its clock
/// says, and docs/ENGINE.md's rules decide the rest. The log keeps commit
/// order whatever the times; expired is terminal; a share is expired from
/// its `expiresAt` on, by this store's clock. Times are written out by hand:
/// `TestStore`'s clock starts at 1_800_000_000_000 ms.
@Suite struct ClockTests {
    static let start = Timestamp(milliseconds: 1_800_000_000_000)

    static func ms(_ milliseconds: Int64) -> Timestamp { Timestamp(milliseconds: milliseconds) }

    @Test func aClockSetBackStampsTheEarlierTimeAndTheLogKeepsCommitOrder() throws {
        let test = try TestStore()
        let first = try test.store.create(vCard: smallCard(1), ttl: .seconds(3600))
        test.clock.advance(by: .seconds(-7200))
        let second = try test.store.create(vCard: smallCard(2), ttl: .seconds(3600))
        #expect((first.createdAt, first.expiresAt) == (Self.start, Self.ms(1_800_003_600_000)))
        #expect((second.createdAt, second.expiresAt) == (Self.ms(1_799_992_800_000), Self.ms(1_799_996_400_000)))
        let log = try test.store.events(after: 0)
        #expect(log.map(\.position) == [1, 2])
        #expect(log.map(\.event.id.counter) == [1, 2])
        #expect(log.map(\.event.recordName) == [first.recordName, second.recordName])
        // Both are live at the earlier time; nothing is due.
        #expect(try test.store.sweep().expired == 0)
        #expect(try test.store.stats().live == 2)
        // Forward again to the first share's creation: the second, created
        // "earlier", has ended, and the sweep logs it at its own expiresAt.
        test.clock.advance(by: .seconds(7200))
        #expect(try test.store.fetch(second.recordName) == .expired(at: Self.ms(1_799_996_400_000), reason: .ttl))
        #expect(try test.store.sweep().expired == 1)
        #expect(try test.store.events(after: 2).map(\.event.kind) == [
            .shareExpired(ShareExpired(recordName: second.recordName, at: Self.ms(1_799_996_400_000), reason: .ttl))
        ])
        #expect(try test.store.fetch(first.recordName) == .live(Share(
            recordName: first.recordName, vCard: smallCard(1), createdAt: Self.start, expiresAt: Self.ms(1_800_003_600_000))))
        #expect(try test.store.verify().isConsistent)
    }

    /// Expired is terminal: once swept (or revoked), a share stays ended
    /// when the clock goes back before its end.
    @Test func aSweptShareStaysExpiredWhenTheClockGoesBack() throws {
        let test = try TestStore()
        let created = try test.store.create(vCard: smallCard(), ttl: .seconds(60))
        test.clock.advance(by: .seconds(60))
        #expect(try test.store.sweep().expired == 1)
        test.clock.advance(by: .seconds(-3600))
        #expect(try test.store.fetch(created.recordName) == .expired(at: Self.ms(1_800_000_060_000), reason: .ttl))
        #expect(throws: ShareLogError.expired(created.recordName, at: Self.ms(1_800_000_060_000), reason: .ttl)) {
            try test.store.revoke(created.recordName)
        }
        #expect(try test.store.stats().events == 2)
    }

    /// Until a sweep records it, a share's end is a comparison with the
    /// clock (lazy expiry), so a clock set back before `expiresAt` sees the
    /// share live again; the sweep makes the end permanent.
    @Test func aDueShareNotYetSweptFollowsTheClockBack() throws {
        let test = try TestStore()
        let created = try test.store.create(vCard: smallCard(), ttl: .seconds(60))
        test.clock.advance(by: .seconds(60))
        #expect(try test.store.fetch(created.recordName) == .expired(at: Self.ms(1_800_000_060_000), reason: .ttl))
        test.clock.advance(by: .milliseconds(-1))
        #expect(try test.store.fetch(created.recordName) == .live(Share(
            recordName: created.recordName, vCard: smallCard(), createdAt: Self.start, expiresAt: Self.ms(1_800_000_060_000))))
        #expect(try test.store.sweep().expired == 0)
    }

    /// A revoke stamps its own clock's time, even one before the share's
    /// creation: the share ends then.
    @Test func aRevokeAfterTheClockWentBackIsStampedWithTheEarlierTime() throws {
        let test = try TestStore()
        let created = try test.store.create(vCard: smallCard(), ttl: .seconds(3600))
        test.clock.advance(by: .seconds(-600))
        let revoked = try test.store.revoke(created.recordName)
        #expect(revoked == ShareExpired(recordName: created.recordName, at: Self.ms(1_799_999_400_000), reason: .revoked))
        #expect(try test.store.fetch(created.recordName, at: Self.start) == .expired(at: Self.ms(1_799_999_400_000), reason: .revoked))
        #expect(try test.store.stats().pendingRedactions == 1)
    }

    /// A creation from a replica whose clock runs ahead keeps its times as
    /// sent. It is live here until its `expiresAt` by this store's clock,
    /// even before its `createdAt`; the sweep ends it at that `expiresAt`.
    @Test func aCreationStampedInTheFutureIsKeptAsSentAndLiveUntilItsExpiry() throws {
        let test = try TestStore()
        let other = ForeignReplica()
        let name = RecordName.random()
        let inAnHour = Self.ms(1_800_003_600_000), inTwoHours = Self.ms(1_800_007_200_000)
        let creation = other.created(name, vCard: smallCard(3), at: inAnHour, ttl: .seconds(3600))
        #expect(try test.store.apply([creation]) == ApplyReport(applied: 1, duplicates: 0))
        let share = Share(recordName: name, vCard: smallCard(3), createdAt: inAnHour, expiresAt: inTwoHours)
        #expect(try test.store.fetch(name) == .live(share))
        #expect(try test.store.fetch(name, at: Self.ms(1_800_007_199_999)) == .live(share))
        #expect(try test.store.fetch(name, at: inTwoHours) == .expired(at: inTwoHours, reason: .ttl))
        let stats = try test.store.stats()
        #expect((stats.live, stats.due) == (1, 0))
        #expect(try test.store.sweep().expired == 0)
        #expect(try test.store.sweep(at: inTwoHours).expired == 1)
        #expect(try test.store.events(after: 1).map(\.event.kind) == [.shareExpired(ShareExpired(recordName: name, at: inTwoHours, reason: .ttl))])
        #expect(try test.store.verify().isConsistent)
    }
}
