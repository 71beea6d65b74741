internal import CNATS
import Foundation
import SharePrimitives

/// What JetStream answered to the messages of one asynchronous publish
/// batch: filled by libnats's acknowledgement callback on its thread, read
/// by the publishing thread once the batch completed.
final class PublishTally: Sendable {
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

    private let outcome = Locked(Outcome())

    func acknowledged(duplicate: Bool) {
        outcome.withLock { outcome in
            outcome.acknowledged += 1
            if duplicate { outcome.duplicates += 1 }
        }
    }

    /// Keeps the batch's first failure.
    func failed(_ failure: Failure) {
        outcome.withLock { outcome in if outcome.failure == nil { outcome.failure = failure } }
    }

    /// The outcome so far, and a fresh one for the next batch.
    @discardableResult
    func reset() -> Outcome {
        outcome.withLock { outcome in
            defer { outcome = Outcome() }
            return outcome
        }
    }
}
