internal import CNATS
import Foundation

/// What JetStream answered to the messages of one asynchronous publish
/// batch: filled by libnats's acknowledgement callback on its thread, read
/// by the publishing thread once the batch completed.
///
/// `@unchecked Sendable`: `outcome` is only touched under `lock`, an
/// `NSLock` (a pthread mutex, which ThreadSanitizer sees, as it does not
/// see `Synchronization.Mutex`).
final class PublishTally: @unchecked Sendable {
    struct Failure: @unchecked Sendable {
        // @unchecked: natsStatus and jsErrCode are C enums, plain integers.
        let status: natsStatus
        let code: jsErrCode
        let text: String
    }

    struct Outcome: Sendable {
        var acknowledged = 0
        var duplicates = 0
        var failure: Failure?
    }

    private let lock = NSLock()
    private var outcome = Outcome()

    func acknowledged(duplicate: Bool) {
        lock.withLock {
            outcome.acknowledged += 1
            if duplicate { outcome.duplicates += 1 }
        }
    }

    func failed(_ failure: Failure) {
        lock.withLock { if outcome.failure == nil { outcome.failure = failure } }
    }

    /// The outcome so far, and a fresh one for the next batch.
    @discardableResult
    func reset() -> Outcome {
        lock.withLock {
            defer { outcome = Outcome() }
            return outcome
        }
    }
}
