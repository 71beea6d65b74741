import Foundation
import Synchronization
import TestSupport

/// Runs a closure on a thread of its own, as the sync server runs a
/// session; `join` waits for its result under a deadline.
final class BackgroundThread<Value: Sendable>: Sendable {
    private let outcome = Mutex<Result<Value, any Error>?>(nil)

    init(_ body: @escaping @Sendable () throws -> Value) {
        let thread = Thread { [self] in
            let result = Result { try body() }
            outcome.withLock { $0 = result }
        }
        thread.start()
    }

    /// The closure's value, or the error it threw. Throws
    /// `DeadlineExceeded` if it has not finished within `timeout`.
    func join(_ what: String, timeout: Duration = .seconds(60)) throws -> Value {
        var finished: Result<Value, any Error>?
        try Deadline.block(until: what, timeout: timeout) {
            finished = outcome.withLock { $0 }
            return finished != nil
        }
        return try finished!.get()
    }
}
