import Foundation

/// A task executor that runs every job at once on a new thread of its own,
/// never on Swift's cooperative pool.
///
/// For tests that block a thread for seconds (`OwnThreadTrait`): such a
/// test's whole synchronous body is one job, so it holds its own thread,
/// not one of the pool's. A thread per job costs one thread start per
/// resumption, which matters nothing beside the seconds these tests block;
/// it also means no job ever waits for another to end, so tests that block
/// in several child tasks at once cannot starve each other.
final class ThreadPerJobExecutor: TaskExecutor {
    static let shared = ThreadPerJobExecutor()

    private init() {}

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let thread = Thread { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
        thread.name = "test-own-thread"
        thread.start()
    }
}
