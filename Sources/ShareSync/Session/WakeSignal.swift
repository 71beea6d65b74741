import Foundation
import Glibc
import SharePrimitives

/// A descriptor a session thread waits on beside its channel
/// (`ByteChannel.waitReadable(orWake:deadline:)`), and that other threads
/// signal: a commit to follow, or the server stopping. A non-blocking
/// pipe: any number of signals before a drain wake the waiter once (a
/// signal that finds the pipe full is already pending).
///
/// `signal()` and `close()` run under the lock of `closed`: `SessionContext.wakeAll()`
/// signals from a snapshot taken outside its own lock, so a signal can race
/// the session closing it. Unlocked, its write could land after the
/// reading end closed (SIGPIPE: the write has no `MSG_NOSIGNAL`) or after
/// both closed (a stray byte in whatever file took the number).
final class WakeSignal: Sendable {
    /// The end to wait on.
    let descriptor: Int32
    private let writeEnd: Int32
    /// Whether `close()` closed both ends.
    private let closed = Locked(false)

    /// - Throws: `TransportError.system` when no descriptor is left.
    init() throws(TransportError) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw .system(operation: "pipe", errno: errno) }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        descriptor = ends[0]
        writeEnd = ends[1]
    }

    deinit { close() }

    /// Wakes the waiting thread. Safe from any thread, any number of times.
    func signal() {
        closed.withLock { closed in
            guard !closed else { return }
            var one: UInt8 = 1
            _ = Glibc.write(writeEnd, &one, 1)
        }
    }

    /// Clears the signal, so the next wait blocks until the next one.
    func drain() {
        var bytes = [UInt8](repeating: 0, count: 256)
        while Glibc.read(descriptor, &bytes, bytes.count) > 0 {}
    }

    /// Blocks until signalled or until `deadline`; true when signalled.
    /// Does not drain.
    func wait(until deadline: ContinuousClock.Instant) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return false }
            let ready = poll(&entry, 1, Int32(clamping: left.millisecondsToWait))
            if ready > 0 { return true }
            if ready < 0, errno != EINTR { return false }
        }
    }

    func close() {
        closed.withLock { closed in
            guard !closed else { return }
            closed = true
            Glibc.close(writeEnd)
            Glibc.close(descriptor)
        }
    }
}
