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
///
/// `@unchecked Sendable`: every field but the constants is read and
/// written under `condition`'s lock (an `NSCondition`, a pthread mutex that
/// ThreadSanitizer sees).
public final class LogQueue: @unchecked Sendable {
    /// The most lines waiting for the writer.
    public let capacity: Int
    private let write: @Sendable (String) -> Void
    private let condition = NSCondition()
    private var lines: [String] = []
    private var droppedSinceWrite = 0
    private var droppedInAll = 0
    private var closing = false
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
        condition.lock()
        defer { condition.unlock() }
        guard !closing, lines.count < capacity else {
            droppedSinceWrite += 1
            droppedInAll += 1
            return
        }
        lines.append(line)
        condition.signal()
    }

    /// The lines dropped so far because the queue was full.
    public var dropped: Int {
        condition.lock()
        defer { condition.unlock() }
        return droppedInAll
    }

    /// Lets the writer write what is queued and end, waiting for it at
    /// most `timeout`: a writer stuck on a reader that never reads is left
    /// behind, with its lines, rather than keep the process from exiting.
    /// Idempotent.
    public func close(waitingAtMost timeout: Duration = .seconds(5)) {
        condition.lock()
        let first = !closing
        closing = true
        condition.signal()
        condition.unlock()
        if first { _ = finished.wait(timeout: .now() + .nanoseconds(Int(timeout.nanosecondsToWait))) }
    }

    private func drain() {
        while true {
            condition.lock()
            while lines.isEmpty, !closing { condition.wait() }
            let batch = lines
            let dropped = droppedSinceWrite
            lines = []
            droppedSinceWrite = 0
            let done = closing && batch.isEmpty
            condition.unlock()
            if dropped > 0 { write("\(dropped) log lines were dropped: the log's reader fell behind") }
            for line in batch { write(line) }
            if done { break }
        }
        finished.signal()
    }
}
