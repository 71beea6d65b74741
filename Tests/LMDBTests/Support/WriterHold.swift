import Dispatch
import TestSupport
@testable import LMDB

/// Keeps an environment's writer thread busy in an empty write, so that
/// writes submitted meanwhile queue up and then run as one group.
struct WriterHold {
    private let gate = DispatchSemaphore(value: 0)
    private let blocker: Task<Void, any Error>

    /// Returns once the writer is inside the holding write.
    init(_ env: Environment) async throws {
        let holding = Counter()
        let gate = self.gate
        blocker = Task {
            try await env.write { _ in
                holding.increment()
                gate.wait()
            }
        }
        try await Deadline.wait(until: "the writer holds its write") { holding.count > 0 }
    }

    /// Lets the writer go on to the queued writes.
    func release() async throws {
        gate.signal()
        try await blocker.value
    }
}
