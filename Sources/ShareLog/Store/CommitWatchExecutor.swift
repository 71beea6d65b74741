import Foundation

/// The one thread that tasks iterating `ShareStore.commits()` may run on
/// (`Task(executorPreference: CommitWatchExecutor.shared)`), so that a
/// commit wakes sessions and relays (ShareSync's `withCommitWatch`) even
/// while blocking work holds every thread of Swift's cooperative pool (two
/// on a two-core machine: a test runner's blocking tests, or an app's).
/// Each watch's job is a wake-up, microseconds long, so one thread serves
/// them all in turn.
///
/// `@unchecked Sendable`: `jobs` is only touched under `condition`'s lock
/// (NSCondition: a pthread mutex, which ThreadSanitizer sees).
package final class CommitWatchExecutor: TaskExecutor, @unchecked Sendable {
    package static let shared = CommitWatchExecutor()

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    private init() {
        let thread = Thread { [self] in run() }
        thread.name = "sharelog-commit-watch"
        thread.stackSize = 1 << 20
        thread.start()
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.withLock {
            jobs.append(job)
            condition.signal()
        }
    }

    /// Runs jobs in the order they came, for the life of the process.
    private func run() -> Never {
        while true {
            let next = condition.withLock {
                while jobs.isEmpty { condition.wait() }
                return jobs.removeFirst()
            }
            next.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
