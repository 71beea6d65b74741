import Glibc

/// What an accept loop does when the process is out of descriptors
/// (`EMFILE`, `ENFILE`): a connection waits in the kernel's backlog, the
/// listener stays readable, and an accept loop that simply tries again
/// burns a core and writes a log line each time.
///
/// The server first drops the arrival that has waited longest (its
/// handshake is not done, so nobody loses a session) and tries again, so a
/// flood of silent connections cannot keep a good client out. When there
/// is none to drop, every descriptor is a session's: the listener leaves
/// the poll set for a pause that starts at 10 ms and doubles to 1 s, reset
/// by the next accept that works. Either way the log gets at most one line
/// a second, with the count.
///
/// Used by the accept thread alone.
struct DescriptorShortage {
    /// Until when the listener is left out of the poll set; nil: it is in.
    private(set) var pausedUntil: ContinuousClock.Instant?
    private var pause = Self.firstPause
    private var failures = 0
    private var dropped = 0
    private var lastLogged: ContinuousClock.Instant?

    private static let firstPause = Duration.milliseconds(10)
    private static let longestPause = Duration.seconds(1)

    /// Whether the listener may be polled at `now`.
    mutating func isListening(at now: ContinuousClock.Instant) -> Bool {
        guard let until = pausedUntil else { return true }
        if now < until { return false }
        pausedUntil = nil
        return true
    }

    /// An accept failed for want of descriptors. `droppedOne` says whether
    /// an arrival was dropped to make room; when not, the listener pauses.
    /// Returns the log line due now, if any.
    mutating func failed(_ error: TransportError, droppedOne: Bool, at now: ContinuousClock.Instant) -> String? {
        failures += 1
        let paused = pause
        if droppedOne {
            dropped += 1
        } else {
            pausedUntil = now + paused
            pause = min(pause * 2, Self.longestPause)
        }
        guard lastLogged.map({ now >= $0 + .seconds(1) }) ?? true else { return nil }
        lastLogged = now
        defer { (failures, dropped) = (0, 0) }
        return "accept failed \(failures) times since the last such line: \(error); dropped \(dropped) connections that had not finished "
            + "their handshake to make room" + (droppedOne ? "" : ", and stopped accepting for \(paused)")
    }

    /// An accept worked: the next shortage pauses briefly again.
    mutating func recovered() { pause = Self.firstPause }

    /// Whether `error` is a shortage of descriptors.
    static func isShortage(_ error: TransportError) -> Bool {
        if case .system(_, let code) = error { return code == EMFILE || code == ENFILE }
        return false
    }
}
