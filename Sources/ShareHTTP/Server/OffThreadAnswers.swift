import Dispatch
import Glibc
import Synchronization

/// The requests of one daemon being answered away from libmicrohttpd's
/// threads (`HTTPResponder.mayBlock`): each runs on a worker thread while
/// its connection is suspended, and resumes it when its answer is ready.
///
/// libmicrohttpd must not stop a daemon that has a suspended connection,
/// so `drain` refuses new work and waits for what runs: the daemon's
/// `stop` calls it first. Each piece of work is one responder call, which
/// ends (a write waits for at most one durable commit).
final class OffThreadAnswers: Sendable {
    private struct State {
        var draining = false
        var running = 0
    }

    private let state = Mutex(State())
    /// Concurrent: every blocked request waits on its own thread, so all of
    /// them can wait in one group commit. Dispatch bounds the threads.
    private let queue = DispatchQueue(label: "sharelog.http.off-thread", attributes: .concurrent)

    /// Counts one request in, unless `drain` has begun: then false, and the
    /// caller answers on its own thread. A `true` must be followed by
    /// exactly one `run`.
    func reserve() -> Bool {
        state.withLock { state in
            guard !state.draining else { return false }
            state.running += 1
            return true
        }
    }

    /// Runs `work` on a worker thread for a reserved request, and counts it
    /// out once `work` has returned (its connection resumed).
    func run(_ work: @escaping @Sendable () -> Void) {
        queue.async {
            work()
            self.state.withLock { $0.running -= 1 }
        }
    }

    /// Refuses new requests, then waits until none runs.
    func drain() {
        state.withLock { $0.draining = true }
        while state.withLock({ $0.running }) > 0 { usleep(1_000) }
    }
}
