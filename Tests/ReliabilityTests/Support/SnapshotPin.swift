import Dispatch
import Foundation
import LMDB
import Synchronization

/// A read transaction held open on its own thread, as a long report or a
/// slow reader would hold one: LMDB reuses no page freed after its snapshot
/// until it ends.
final class SnapshotPin: Sendable {
    private let holding = DispatchSemaphore(value: 0)
    private let releasing = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let held = Mutex(false)

    /// The reader did not start within its deadline.
    struct NotHeld: Error, CustomStringConvertible {
        var description: String { "the pinning read transaction did not start within 60 seconds" }
    }

    /// Starts the read and returns once it holds its snapshot.
    func hold(_ environment: Environment) throws {
        held.withLock { $0 = true }
        Thread { [self] in
            _ = try? environment.read { _ in
                holding.signal()
                // Bounded, so a test that fails before releasing cannot hang.
                _ = releasing.wait(timeout: .now() + 240)
            }
            finished.signal()
        }.start()
        guard holding.wait(timeout: .now() + 60) == .success else { throw NotHeld() }
    }

    /// Ends the read, if one is held, and waits until it has ended.
    func release() {
        guard held.withLock({ held in defer { held = false }; return held }) else { return }
        releasing.signal()
        _ = finished.wait(timeout: .now() + 60)
    }
}
