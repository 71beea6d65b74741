import Glibc
import SharePrimitives

/// Every system call of the transports passes through here: `EINTR` is
/// retried, deadlines become `poll` timeouts, and a failure becomes a
/// `TransportError`.
///
/// Descriptors handed to these functions are non-blocking (`O_NONBLOCK`),
/// except where a function says otherwise, so a call never waits in the
/// kernel past its deadline: waiting happens only in `poll`.
enum Posix {
    /// The `poll` timeout in milliseconds that ends at `deadline`: -1 (wait
    /// for ever) for no deadline, nil once the deadline has passed. Rounded
    /// up, so a wait never ends just before its deadline and spins.
    static func pollTimeout(until deadline: ContinuousClock.Instant?) -> Int32? {
        guard let deadline else { return -1 }
        let remaining = deadline - ContinuousClock.now
        guard remaining > .zero else { return nil }
        return Int32(clamping: remaining.millisecondsToWait)
    }

    /// Waits until `descriptor` is ready for `events` (`POLLIN`, `POLLOUT`).
    /// Returns false when `deadline` passes first; a deadline already
    /// passed (`.now`) looks once without waiting. An error or hang-up on
    /// the descriptor counts as ready: the next read or write reports it.
    static func wait(_ descriptor: Int32, for events: Int16, deadline: ContinuousClock.Instant?) throws(TransportError) -> Bool {
        var entries = [pollfd(fd: descriptor, events: events, revents: 0)]
        return try pollReady(&entries, deadline: deadline)
    }

    /// `poll(2)` on `entries` until one of them is ready, retrying `EINTR`:
    /// true when one is (their `revents` say which), false once `deadline`
    /// passes. A deadline already passed still gets one look: it bounds
    /// the wait, not the work.
    private static func pollReady(_ entries: inout [pollfd], deadline: ContinuousClock.Instant?) throws(TransportError) -> Bool {
        var looked = false
        while true {
            guard let timeout = pollTimeout(until: deadline) ?? (looked ? nil : 0) else { return false }
            looked = true
            let ready = Glibc.poll(&entries, nfds_t(entries.count), timeout)
            if ready > 0 { return true }
            if ready < 0, errno != EINTR { throw .system(operation: "poll", errno: errno) }
        }
    }

    /// Waits until `descriptor` is readable or `wake` (when given) is, or
    /// `deadline` passes. When both are readable the answer is `.readable`;
    /// `wake` stays readable until its owner drains it, so the next wait
    /// reports it. An error or hang-up on either counts as readable.
    static func waitReadable(
        _ descriptor: Int32, orWake wake: Int32?, deadline: ContinuousClock.Instant?
    ) throws(TransportError) -> ChannelReadiness {
        var entries = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
        if let wake { entries.append(pollfd(fd: wake, events: Int16(POLLIN), revents: 0)) }
        guard try pollReady(&entries, deadline: deadline) else { return .timedOut }
        if entries[0].revents != 0 { return .readable }
        if entries.count > 1, entries[1].revents & Int16(POLLNVAL) != 0 {
            throw .system(operation: "poll on the wake-up descriptor \(entries[1].fd)", errno: EBADF)
        }
        return .woken
    }

    /// What ended a wait of a write (`waitWritable(_:orReadable:deadline:)`).
    enum WriteReadiness: Equatable {
        case writable
        /// The descriptor watched for reading is readable (or has an
        /// error or hang-up to report) and `output` is not writable.
        case readable
        case timedOut
    }

    /// Waits until `output` takes bytes or `input` (when given; it may be
    /// `output` itself, a socket) has something to read, or `deadline`
    /// passes. When both are ready the answer is `.writable`. An error or
    /// hang-up on `output` counts as writable: the next write reports it.
    static func waitWritable(
        _ output: Int32, orReadable input: Int32?, deadline: ContinuousClock.Instant?
    ) throws(TransportError) -> WriteReadiness {
        var entries: [pollfd]
        if input == output {
            entries = [pollfd(fd: output, events: Int16(POLLOUT) | Int16(POLLIN), revents: 0)]
        } else {
            entries = [pollfd(fd: output, events: Int16(POLLOUT), revents: 0)]
            if let input { entries.append(pollfd(fd: input, events: Int16(POLLIN), revents: 0)) }
        }
        guard try pollReady(&entries, deadline: deadline) else { return .timedOut }
        // A hang-up on a socket also sets POLLHUP: a read reports it (the
        // end of the stream) before the write fails.
        if entries[0].revents & (Int16(POLLOUT) | Int16(POLLERR) | Int16(POLLNVAL)) != 0 { return .writable }
        if input == nil, entries[0].revents & Int16(POLLHUP) != 0 { return .writable }
        return .readable
    }

    /// What one `read`, `send` or `write` did.
    enum Outcome: Equatable {
        /// This many bytes moved; 0 from a read is the end of the file.
        case transferred(Int)
        /// A non-blocking descriptor is not ready (`EAGAIN`).
        case wouldBlock
        /// The call failed with this `errno`.
        case failed(Int32)
    }

    /// `read(2)` once, retrying `EINTR`.
    static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Outcome {
        while true {
            let count = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
            if count >= 0 { return .transferred(count) }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            case let code: return .failed(code)
            }
        }
    }

    /// `send(2)` with `MSG_NOSIGNAL` (a closed peer gives `EPIPE`, never
    /// `SIGPIPE`) once, retrying `EINTR`.
    static func send(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Outcome {
        while true {
            let count = Glibc.send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
            if count >= 0 { return .transferred(count) }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            case let code: return .failed(code)
            }
        }
    }

    /// `write(2)` to a blocking descriptor that is not a socket (a pipe, a
    /// file, a terminal) once, retrying `EINTR`, with `SIGPIPE` blocked in
    /// this thread for the call: a closed reader gives `EPIPE`, and the
    /// `SIGPIPE` the write raised is taken back before the mask is restored,
    /// unless one was already pending.
    static func writeWithoutSIGPIPE(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Outcome {
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        var previousMask = sigset_t()
        pthread_sigmask(SIG_BLOCK, &pipeSignal, &previousMask)
        defer { pthread_sigmask(SIG_SETMASK, &previousMask, nil) }
        var pendingBefore = sigset_t()
        sigpending(&pendingBefore)
        let wasPending = sigismember(&pendingBefore, SIGPIPE) == 1
        while true {
            let count = Glibc.write(descriptor, bytes.baseAddress, bytes.count)
            if count >= 0 { return .transferred(count) }
            let failure = errno
            if failure == EINTR { continue }
            if failure == EAGAIN || failure == EWOULDBLOCK { return .wouldBlock }
            if failure == EPIPE, !wasPending {
                var now = timespec(tv_sec: 0, tv_nsec: 0)
                _ = sigtimedwait(&pipeSignal, nil, &now)
            }
            return .failed(failure)
        }
    }

    /// A new stream socket of `family`, non-blocking and close-on-exec;
    /// throws on failure.
    static func streamSocket(_ family: Int32) throws(TransportError) -> Int32 {
        let flags = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let descriptor = socket(family, flags, 0)
        guard descriptor >= 0 else { throw .system(operation: "socket", errno: errno) }
        return descriptor
    }

    /// `accept4(2)`: the next connection on a listening socket, made
    /// non-blocking and close-on-exec atomically, or -1 with `errno`.
    static func accept(
        _ descriptor: Int32, _ address: UnsafeMutablePointer<sockaddr>, _ length: UnsafeMutablePointer<socklen_t>
    ) -> Int32 {
        systemAccept4(descriptor, address, length, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
    }

    /// `close(2)`, ignoring its result: Linux frees the descriptor even when
    /// close reports an error, so retrying could close another thread's file.
    static func close(_ descriptor: Int32) {
        _ = Glibc.close(descriptor)
    }

    /// The text of an `errno` value, as `strerror` gives it.
    static func message(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}

/// glibc's `accept4(2)`, which the Glibc module does not export (it needs
/// `_GNU_SOURCE`). The C signature is
/// `int accept4(int sockfd, struct sockaddr *addr, socklen_t *addrlen, int flags)`.
@_silgen_name("accept4")
private func systemAccept4(
    _ descriptor: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: UnsafeMutablePointer<socklen_t>?, _ flags: Int32
) -> Int32
