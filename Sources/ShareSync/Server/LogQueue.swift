import Foundation
import ShareLog
import SharePrimitives

/// Log records handed to a thread of their own, so that a server never waits
/// on its log: a standard error that nobody reads fills its pipe, and a
/// write to it then blocks until somebody does.
///
/// `append` only takes a lock and never waits for the writer. The queue
/// holds at most `capacity` records; one that finds it full is dropped and
/// counted, and the writer says how many were dropped (a `log.dropped`
/// warning) before the next record it writes, so a flood costs the log its
/// detail, never the server its progress. Each record is stamped with the
/// wall-clock time it was appended. `close(waitingAtMost:)` writes what is
/// queued and ends the writer; records appended after it are dropped.
public final class LogQueue: Sendable {
    /// What `append`, `close` and the writer share.
    private struct State {
        var records: [(LogRecord, Timestamp)] = []
        var droppedSinceWrite = 0
        var droppedInAll = 0
        var closing = false
    }

    /// The most records waiting for the writer.
    public let capacity: Int
    private let write: @Sendable (LogRecord, Timestamp) -> Void
    private let state = LockedCondition(State())
    private let finished = DispatchSemaphore(value: 0)

    /// Starts the writer thread, which calls `write` with each record and
    /// its time, in order, never two at once.
    public init(capacity: Int = 1024, write: @escaping @Sendable (LogRecord, Timestamp) -> Void) {
        self.capacity = max(capacity, 1)
        self.write = write
        let thread = Thread { [self] in drain() }
        thread.name = "sharelog-log"
        thread.start()
    }

    /// Queues `record` for the writer; drops it when `capacity` records
    /// wait. Never blocks on the writer.
    public func append(_ record: LogRecord) {
        let time = SystemClock().now()
        state.withLock { state in
            guard !state.closing, state.records.count < capacity else {
                state.droppedSinceWrite += 1
                state.droppedInAll += 1
                return
            }
            state.records.append((record, time))
        }
    }

    /// The records dropped so far because the queue was full.
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
            let (batch, dropped, done) = state.wait { state -> ([(LogRecord, Timestamp)], Int, Bool)? in
                guard !state.records.isEmpty || state.closing else { return nil }
                defer {
                    state.records = []
                    state.droppedSinceWrite = 0
                }
                return (state.records, state.droppedSinceWrite, state.closing && state.records.isEmpty)
            }
            if dropped > 0 {
                write(
                    LogRecord(.warning, "log.dropped", "\(dropped) log lines were dropped: the log's reader fell behind", [("dropped", LogValue(dropped))]),
                    SystemClock().now())
            }
            for (record, time) in batch { write(record, time) }
            if done { break }
        }
        finished.signal()
    }
}
