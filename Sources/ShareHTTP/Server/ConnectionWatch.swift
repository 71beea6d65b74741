import Foundation
import Glibc
import Synchronization
import SharePrimitives

/// The header deadline libmicrohttpd lacks: each connection must send a
/// request's whole header within `timeout` of its accept, or of the end of
/// its previous answer. A watcher thread shuts down (`shutdown(2)`, never
/// `close(2)`) the socket of a connection past its deadline; the library
/// then sees the end of the stream and closes the connection itself.
///
/// Why this cannot hit a stranger's socket: libmicrohttpd tells us a
/// connection closed (`remove`) before it closes its descriptor, and
/// `remove` and the shutdown take the same lock, so a descriptor in the
/// table is always still the connection's own.
final class ConnectionWatch: Sendable {
    /// One connection: its socket and its header deadline (monotonic
    /// milliseconds; `Int64.max` while a request is being answered).
    final class Entry: Sendable {
        let descriptor: Int32
        let deadline: Atomic<Int64>
        init(descriptor: Int32, deadline: Int64) {
            self.descriptor = descriptor
            self.deadline = Atomic(deadline)
        }

        /// Its header is in: no deadline until the answer is done.
        func requestStarted() { deadline.store(.max, ordering: .relaxed) }
        /// Its answer is done: the next header is due within `timeout`.
        func requestEnded(timeout: Int64) { deadline.store(MonotonicTime.milliseconds + timeout, ordering: .relaxed) }
    }

    let timeout: Int64
    /// The connections open, by identity; `remove` and the shutdown in
    /// `sweep` take this lock.
    private let entries = Locked<[ObjectIdentifier: Entry]>([:])
    private let running = Atomic<Bool>(true)
    /// Connections cut off for being slow with their header, in all.
    let cutOff = Atomic<Int>(0)

    init(timeout: Duration) {
        self.timeout = max(1, timeout.millisecondsToWait)
    }

    /// A connection was accepted on `descriptor`.
    func add(descriptor: Int32) -> Entry {
        let entry = Entry(descriptor: descriptor, deadline: MonotonicTime.milliseconds + timeout)
        entries.withLock { $0[ObjectIdentifier(entry)] = entry }
        return entry
    }

    /// The library is about to close `entry`'s connection.
    func remove(_ entry: Entry) {
        _ = entries.withLock { $0.removeValue(forKey: ObjectIdentifier(entry)) }
    }

    /// Starts the watcher thread, which looks every 250 ms until `stop()`.
    func start() {
        let thread = Thread { [self] in
            while running.load(ordering: .relaxed) {
                usleep(250_000)
                sweep(now: MonotonicTime.milliseconds)
            }
        }
        thread.name = "sharelog-http-watch"
        thread.start()
    }

    func stop() { running.store(false, ordering: .relaxed) }

    /// Shuts down every connection past its deadline, once.
    func sweep(now: Int64) {
        entries.withLock { entries in
            for (key, entry) in entries where entry.deadline.load(ordering: .relaxed) < now {
                shutdown(entry.descriptor, Int32(SHUT_RDWR))
                entries.removeValue(forKey: key)
                cutOff.add(1, ordering: .relaxed)
            }
        }
    }
}
