import Dispatch
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
        while holding.count == 0 { try await Task.sleep(for: .milliseconds(1)) }
    }

    /// Lets the writer go on to the queued writes.
    func release() async throws {
        gate.signal()
        try await blocker.value
    }
}
