import Foundation

/// Runs a body on `count` threads of its own at once, for measurements
/// whose concurrency must be real: `DispatchQueue.concurrentPerform` runs
/// at most one thread per core, so 50 clients would take turns on 2.
enum ThreadGang {
    /// Runs `body(0) … body(count - 1)` each on a new thread and waits for
    /// all of them, at most `timeout`.
    ///
    /// - Throws: `BenchError.process` when a thread is still running at
    ///   `timeout` (it is left to finish on its own).
    static func run(_ count: Int, timeout: Duration = .seconds(1800), _ body: @escaping @Sendable (Int) -> Void) throws {
        let finished = DispatchSemaphore(value: 0)
        for index in 0..<count {
            Thread.detachNewThread {
                body(index)
                finished.signal()
            }
        }
        let end = DispatchTime.now() + .seconds(Int(timeout.components.seconds))
        for done in 0..<count where finished.wait(timeout: end) != .success {
            throw BenchError.process("\(count - done) of \(count) threads still ran after \(timeout)")
        }
    }
}
