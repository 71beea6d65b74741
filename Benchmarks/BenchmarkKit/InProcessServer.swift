import Foundation
import ShareLog
import ShareSync
import Synchronization

/// A `SyncServer` on a thread of this process, serving `store` on a Unix
/// socket: the main side of the follow measurement, which must commit in
/// the process that serves so that its commit feed wakes the session at
/// once (docs/SYNC.md "Follow").
final class InProcessServer: Sendable {
    private let context = SessionContext()
    private let finished = DispatchSemaphore(value: 0)
    private let failure = Mutex<String?>(nil)
    private let stopped = Atomic<Bool>(false)

    /// Starts serving and returns once the socket listens.
    ///
    /// - Throws: `BenchError.process` when the server fails to listen
    ///   within 30 s.
    init(store: ShareStore, socket: String) throws {
        let listening = DispatchSemaphore(value: 0)
        let server = SyncServer(store: store, configuration: SyncServerConfiguration(endpoint: .unix(path: socket)))
        Thread.detachNewThread { [self] in
            do throws(SyncFailure) {
                try server.serve(context: context) { _ in listening.signal() }
            } catch {
                failure.withLock { $0 = "\(error)" }
                listening.signal()
            }
            finished.signal()
        }
        guard listening.wait(timeout: .now() + 30) == .success, failure.withLock({ $0 }) == nil else {
            stop()
            throw BenchError.process("the in-process server on \(socket) did not listen: \(failure.withLock { $0 } ?? "no answer within 30 s")")
        }
    }

    /// Stops the server and waits (at most 60 s) for its sessions to end;
    /// a second call does nothing.
    func stop() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        context.stop()
        _ = finished.wait(timeout: .now() + 60)
    }
}
