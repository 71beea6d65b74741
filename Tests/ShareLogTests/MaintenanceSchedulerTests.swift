import Foundation
import SampleCards
import SharePrimitives
import Testing
import TestSupport
import TestTraits
@testable import ShareLog

/// The maintenance scheduler in one process (docs/EMBEDDING.md): its
/// passes come while it runs, it keeps the store's maintenance lock until
/// it stops, and it lets the lock go when it does.
@Suite(.hangDeadline) struct MaintenanceSchedulerTests {
    /// What a scheduler reported, for the test's thread to read.
    final class Passes: Sendable {
        private let reports = Locked<[Result<MaintenanceReport, ShareLogError>]>([])
        func record(_ outcome: Result<MaintenanceReport, ShareLogError>) { reports.withLock { $0.append(outcome) } }
        var all: [Result<MaintenanceReport, ShareLogError>] { reports.withLock { $0 } }
        var expired: Int { all.reduce(0) { $0 + ((try? $1.get())?.sweep.expired ?? 0) } }
    }

    static func schedule(every interval: Duration) -> MaintenanceSchedule {
        var schedule = MaintenanceSchedule()
        schedule.sweepInterval = interval
        return schedule
    }

    /// A share that ends while the scheduler runs is swept, and its card
    /// compacted away, by a later pass, with no call from the test.
    @Test func aShareThatEndsWhileTheSchedulerRunsIsSweptByALaterPass() throws {
        let test = try TestStore()
        let share = try test.store.create(vCard: SampleCard.make(index: 1), ttl: .seconds(3600))
        let passes = Passes()
        let scheduler = MaintenanceScheduler(store: test.store, schedule: Self.schedule(every: .milliseconds(20)), onPass: passes.record)
        scheduler.start()
        defer { scheduler.stop() }
        try Deadline.block(until: "the first pass") { !passes.all.isEmpty }
        #expect(passes.expired == 0)
        test.clock.advance(by: .seconds(3601))
        try Deadline.block(until: "a pass sweeps the share") { passes.expired == 1 }
        guard case .expired(_, .ttl) = try test.store.fetch(share.recordName) else {
            Issue.record("the share is not expired by its TTL: \(try test.store.fetch(share.recordName))")
            return
        }
        #expect(try !test.store.hasPendingRedactions(), "the card still waits for a compaction")
    }

    /// While a scheduler runs, a one-off pass is skipped; once it stops,
    /// the lock is free at once, even while another test's thread is
    /// spawning a child (`MaintenanceLockTests`).
    @Test func aRunningSchedulerKeepsTheLockAndStopReleasesIt() throws {
        let test = try TestStore()
        let passes = Passes()
        let scheduler = MaintenanceScheduler(store: test.store, schedule: Self.schedule(every: .seconds(3600)), onPass: passes.record)
        scheduler.start()
        try Deadline.block(until: "the first pass") { !passes.all.isEmpty }
        #expect(try test.store.maintain().ran == false)
        scheduler.stop()
        #expect(try test.store.maintain().ran, "the stopped scheduler left the lock held")
        scheduler.stop()
    }

    /// A scheduler that never started stops at once, and its store can
    /// still be maintained.
    @Test func stoppingASchedulerThatNeverStartedReturnsAtOnce() throws {
        let test = try TestStore()
        let scheduler = MaintenanceScheduler(store: test.store, onPass: { _ in })
        scheduler.stop()
        #expect(try test.store.maintain().ran == true)
    }
}
