import Foundation
import SharePrimitives

/// The one thread that tasks iterating `ShareStore.commits()` may run on
/// (`Task(executorPreference: CommitWatchExecutor.shared)`), so that a
/// commit wakes sessions and relays (ShareSync's `withCommitWatch`) even
/// while blocking work holds every thread of Swift's cooperative pool (two
/// on a two-core machine: a test runner's blocking tests, or an app's).
/// Each watch's job is a wake-up, microseconds long, so one thread serves
/// them all in turn.
package final class CommitWatchExecutor: TaskExecutor {
    package static let shared = CommitWatchExecutor()

    /// The jobs waiting, oldest first.
    private let jobs = LockedCondition<[UnownedJob]>([])

    private init() {
        let thread = Thread { [self] in run() }
        thread.name = "sharelog-commit-watch"
        thread.stackSize = 1 << 20
        thread.start()
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
    }

    /// Runs jobs in the order they came, for the life of the process.
    private func run() -> Never {
        while true {
            let next = jobs.wait { $0.isEmpty ? nil : $0.removeFirst() }
            next.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
