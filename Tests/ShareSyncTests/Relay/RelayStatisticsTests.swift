import Foundation
import Synchronization
import Testing
@testable import ShareSync
import TestTraits

/// `RelayStatistics.counts(after:timeout:)`: a watcher blocked on it sees a
/// change, and a watcher whose timeout passes gets the counts unchanged.
/// Outcomes only, no timings.
@Suite(.hangDeadline) struct RelayStatisticsTests {
    @Test func aChangeWakesAWatcher() {
        let statistics = RelayStatistics()
        let seen = statistics.current
        let done = DispatchSemaphore(value: 0)
        let watched = Mutex<RelayStatistics.Counts?>(nil)
        Thread.detachNewThread {
            let counts = statistics.counts(after: seen, timeout: .seconds(60))
            watched.withLock { $0 = counts }
            done.signal()
        }
        statistics.update { $0.published += 2 }
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(watched.withLock { $0?.published } == 2)
    }

    @Test func aWatcherWhoseTimeoutPassesGetsTheCountsUnchanged() {
        let statistics = RelayStatistics()
        statistics.update { $0.received = 5 }
        let seen = statistics.current
        #expect(statistics.counts(after: seen, timeout: .milliseconds(20)) == seen)
    }

    @Test func countsThatDifferAlreadyReturnAtOnce() {
        let statistics = RelayStatistics()
        statistics.update { $0.retries = 1 }
        #expect(statistics.counts(after: RelayStatistics.Counts(), timeout: .seconds(60)).retries == 1)
    }
}
