import Foundation
import SharePrimitives
import Synchronization
import TestSupport

/// Runs a closure on a thread of its own, as the sync server runs a
/// session; `join` waits for its result under a deadline.
///
/// The closure is `sending`: what it captures, a channel say, is handed to
/// the thread, and the test cannot use it after (the compiler checks);
/// the closure adopts such a channel (`adoptOnCurrentThread()`) before its
/// first use. Its result comes back `sending` the same way, in a `Handoff`
/// (a value put in a `Mutex` after its init would be tied to the thread).
final class BackgroundThread<Value>: Sendable {
    private let outcome = Mutex<Handoff<Result<Value, any Error>>?>(nil)

    init(_ body: sending @escaping () throws -> sending Value) {
        let body = Handoff(body)
        let thread = Thread { [self] in
            let result: Result<Value, any Error>
            do { result = .success(try body.take()()) } catch { result = .failure(error) }
            let finished = Handoff(result)
            outcome.withLock { $0 = finished }
        }
        thread.start()
    }

    /// The closure's value, or the error it threw. Throws
    /// `DeadlineExceeded` if it has not finished within `timeout`. Once.
    func join(_ what: String, timeout: Duration = .seconds(60)) throws -> sending Value {
        var finished: Handoff<Result<Value, any Error>>?
        try Deadline.block(until: what, timeout: timeout) {
            finished = outcome.withLock { $0 }
            return finished != nil
        }
        return try finished!.take().get()
    }
}
