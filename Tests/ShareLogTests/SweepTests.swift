import Foundation
import Testing
import TestTraits
@testable import ShareLog

@Suite(.ownThread) struct SweepTests {
    @Test func aSweepExpiresExactlyTheDueSharesAndDropsTheirCards() throws {
        let test = try TestStore()
        let short = try (0..<3).map { try test.store.create(vCard: smallCard($0), ttl: .seconds(60)) }
        let long = try (3..<5).map { try test.store.create(vCard: smallCard($0), ttl: .seconds(3600)) }
        test.clock.advance(by: .seconds(60))
        let report = try test.store.sweep()
        #expect(report.expired == 3)
        for share in short {
            // ManualClock's start plus the 60-second TTL.
            #expect(try test.store.fetch(share.recordName) == .expired(at: Timestamp(milliseconds: 1_800_000_060_000), reason: .ttl))
        }
        // Each swept card's one copy, in the log, is queued for compaction.
        #expect(try test.store.stats().pendingRedactions == 3)
        // Created at ManualClock's start for an hour, so still live a minute in.
        for (index, share) in zip(3..<5, long) {
            #expect(try test.store.fetch(share.recordName) == .live(Share(
                recordName: share.recordName, vCard: smallCard(index),
                createdAt: Timestamp(milliseconds: 1_800_000_000_000), expiresAt: Timestamp(milliseconds: 1_800_003_600_000))))
        }
        #expect(try test.store.sweep().expired == 0)
        let stats = try test.store.stats()
        #expect(stats.live == 2 && stats.expired == 3 && stats.due == 0)
    }

    @Test func aSweepRunsInBoundedBatchesAndReportsProgress() throws {
        let test = try TestStore()
        let replica = ForeignReplica()
        let events = (0..<25).map { _ in replica.created(at: test.clock.now(), ttl: .seconds(60)) }
        try test.store.apply(events)
        test.clock.advance(by: .seconds(61))
        var seen: [Int] = []
        let report = try test.store.sweep(batchSize: 10) { seen.append($0.expired) }
        #expect(report.expired == 25)
        #expect(report.batches == 3)
        #expect(seen == [10, 20, 25])
    }

    @Test func sweepCostIsIndependentOfTheNumberOfLiveShares() throws {
        let test = try TestStore()
        let replica = ForeignReplica()
        let now = test.clock.now()
        for chunk in 0..<10 {
            let events = (0..<10_000).map { index in
                // 100 of the 100,000 are due within the hour; the rest in a week.
                replica.created(at: now, ttl: (chunk * 10_000 + index) % 1000 == 0 ? .seconds(600) : .seconds(604_800))
            }
            try test.store.apply(events)
        }
        test.clock.advance(by: .seconds(3600))
        let report = try test.store.sweep()
        #expect(report.expired == 100)
        #expect(report.keysVisited == 100)
        #expect(try test.store.stats().live == 99_900)
    }

    @Test func sweepingAtAGivenTimeIgnoresTheClock() throws {
        let test = try TestStore()
        let share = try test.store.create(vCard: smallCard(), ttl: .seconds(3600))
        #expect(try test.store.sweep(at: share.expiresAt.advanced(by: .milliseconds(-1))).expired == 0)
        #expect(try test.store.sweep(at: share.expiresAt).expired == 1)
    }
}
