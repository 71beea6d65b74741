import Dispatch
import SharePrimitives

/// Carries a write's result from the writer thread to a caller that blocks
/// for it.
package final class WriteAnswer<R: Sendable>: Sendable {
    private let result = Locked<Result<R, any Error>?>(nil)
    private let ready = DispatchSemaphore(value: 0)

    package init() {}

    package func deliver(_ outcome: Result<R, any Error>) {
        result.withLock { $0 = outcome }
        ready.signal()
    }

    package func wait() throws -> R {
        ready.wait()
        guard let outcome = result.withLock({ $0.take() }) else { preconditionFailure("a write answered twice") }
        return try outcome.get()
    }
}
