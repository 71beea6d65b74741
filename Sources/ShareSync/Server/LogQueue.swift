import Foundation
import SharePrimitives

/// Log lines handed to a thread of their own, so that a server never waits
/// on its log: a standard error that nobody reads fills its pipe, and a
/// write to it then blocks until somebody does.
///
/// `append` only takes a lock and never waits for the writer. The queue
/// holds at most `capacity` lines; a line that finds it full is dropped and
/// counted, and the writer says how many were dropped before the next line
/// it writes, so a flood costs the log its detail, never the server its
/// progress. `close(waitingAtMost:)` writes what is queued and ends the
/// writer; lines appended after it are dropped.
public final class LogQueue: Sendable {
    /// What `append`, `close` and the writer share.
    private struct State {
        var lines: [String] = []
        var droppedSinceWrite = 0
        var droppedInAll = 0
        var closing = false
    }

    /// The most lines waiting for the writer.
    public let capacity: Int
    private let write: @Sendable (String) -> Void
    private let state = LockedCondition(State())
    private let finished = DispatchSemaphore(value: 0)

    /// Starts the writer thread, which calls `write` with each line in
    /// order, never two at once.
    public init(capacity: Int = 1024, write: @escaping @Sendable (String) -> Void) {
        self.capacity = max(capacity, 1)
        self.write = write
        let thread = Thread { [self] in drain() }
        thread.name = "sharelog-log"
        thread.start()
    }

    /// Queues `line` for the writer; drops it when `capacity` lines wait.
    /// Never blocks on the writer.
    public func append(_ line: String) {
        state.withLock { state in
            guard !state.closing, state.lines.count < capacity else {
                state.droppedSinceWrite += 1
                state.droppedInAll += 1
                return
            }
            state.lines.append(line)
        }
    }

    /// The lines dropped so far because the queue was full.
    public var dropped: Int { state.withLock { $0.droppedInAll } }

    /// Lets the writer write what is queued and end, waiting for it at
    /// most `timeout`: a writer stuck on a reader that never reads is left
    /// behind, with its lines, rather than keep the process from exiting.
    /// Idempotent.
    public func close(waitingAtMost timeout: Duration = .seconds(5)) {
        let first = state.withLock { state -> Bool in
            defer { state.closing = true }
            return !state.closing
        }
        if first { _ = finished.wait(timeout: .now() + .nanoseconds(Int(timeout.nanosecondsToWait))) }
    }

    private func drain() {
        while true {
            let (batch, dropped, done) = state.wait { state -> ([String], Int, Bool)? in
                guard !state.lines.isEmpty || state.closing else { return nil }
                defer {
                    state.lines = []
                    state.droppedSinceWrite = 0
                }
                return (state.lines, state.droppedSinceWrite, state.closing && state.lines.isEmpty)
            }
            if dropped > 0 { write("\(dropped) log lines were dropped: the log's reader fell behind") }
            for line in batch { write(line) }
            if done { break }
        }
        finished.signal()
    }
}
