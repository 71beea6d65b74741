import Glibc

/// The connections a server has accepted and not admitted yet
/// (`Arrival`s), waited on by the accept thread in one `poll`, without a
/// thread of their own.
///
/// A connection gets a session thread, and a place in its role's pool,
/// only once its handshake is done: over TCP its TLS handshake first, then
/// the hello and, for a main of a keyed server, the proof. So connections
/// that say nothing, that send one byte, or that cannot prove anything
/// cost a socket and a few hundred bytes each, however many there are,
/// and never hold a place. A connection still here at its handshake
/// deadline is dropped then. When `capacity` wait, a newcomer takes the
/// place of the one that has waited longest, which is dropped: a client
/// that speaks at once is admitted within a turn or two of the accept
/// loop, so it loses its place only if `capacity` connections arrive
/// before its handshake ends.
///
/// Used by the accept thread alone.
struct Vestibule {
    /// What one `wait` found. The arrivals in `expired` have left.
    struct Turn {
        /// The listener has a connection to accept.
        var acceptable = false
        /// The wake-up descriptor is readable.
        var woken = false
        /// Arrivals whose bytes (or hang-up) came: due a step of their
        /// handshake. They stay until `remove`d.
        var ready: [Arrival] = []
        /// Arrivals whose handshake deadline passed: due to be dropped.
        var expired: [Arrival] = []
    }

    /// The most arrivals held at once.
    let capacity: Int
    /// How long an arrival may take to finish its handshake.
    let timeout: Duration
    /// The arrivals, longest waiting first.
    private var arrivals: [Arrival] = []

    init(capacity: Int, timeout: Duration) {
        self.capacity = max(capacity, 1)
        self.timeout = timeout
    }

    /// The arrivals waiting now.
    var count: Int { arrivals.count }

    /// Seats `arrival`. When the vestibule was full, returns the arrival
    /// that left to make room: the longest-waiting one that has not
    /// progressed (`Arrival.hasProgressed`), else the longest-waiting one.
    /// So a flood that reconnects in bursts cannot push out a client in
    /// the middle of its handshake: over TCP only a key holder gets past
    /// TLS, and an attacker gains nothing over taking the oldest.
    mutating func seat(_ arrival: Arrival) -> Arrival? {
        let displaced = arrivals.count >= capacity ? arrivals.remove(at: arrivals.firstIndex { !$0.hasProgressed } ?? arrivals.startIndex) : nil
        arrivals.append(arrival)
        return displaced
    }

    /// The arrival that has waited longest but `spared`, which leaves; nil
    /// when there is none.
    mutating func evictOldest(sparing spared: Arrival? = nil) -> Arrival? {
        guard let index = arrivals.firstIndex(where: { $0 !== spared }) else { return nil }
        return arrivals.remove(at: index)
    }

    /// Whether `arrival` is still here (not dropped during this turn).
    func holds(_ arrival: Arrival) -> Bool {
        arrivals.contains { $0 === arrival }
    }

    /// Takes `arrival` out: it was admitted, refused or failed.
    mutating func remove(_ arrival: Arrival) {
        arrivals.removeAll { $0 === arrival }
    }

    /// Waits until the listener can accept (when `listening`), `wake` is
    /// readable, an arrival's bytes come, or the longest-waiting arrival's
    /// deadline passes; at most until `until`.
    mutating func wait(listener: Int32, listening: Bool, wake: Int32, until: ContinuousClock.Instant?) throws(TransportError) -> Turn {
        var entries = [
            pollfd(fd: listening ? listener : -1, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
        ]
        entries += arrivals.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
        let deadline = [arrivals.first.map { $0.acceptedAt + timeout }, until].compactMap { $0 }.min()
        let ready = poll(&entries, nfds_t(entries.count), Posix.pollTimeout(until: deadline) ?? 0)
        guard ready >= 0 || errno == EINTR else { throw .system(operation: "poll", errno: errno) }
        if entries[1].revents & Int16(POLLNVAL) != 0 { throw .system(operation: "poll on the wake-up descriptor \(wake)", errno: EBADF) }
        var turn = Turn(acceptable: entries[0].revents != 0, woken: entries[1].revents != 0)
        let now = ContinuousClock.now
        var staying: [Arrival] = []
        for (arrival, entry) in zip(arrivals, entries.dropFirst(2)) {
            // The deadline first: a client that trickles a byte at a time
            // is readable on every turn, and must still run out of time.
            if now >= arrival.acceptedAt + timeout {
                turn.expired.append(arrival)
            } else if entry.revents != 0 {
                turn.ready.append(arrival)
                staying.append(arrival)
            } else {
                staying.append(arrival)
            }
        }
        arrivals = staying
        return turn
    }

    /// Closes every arrival's connection and empties the vestibule.
    mutating func closeAll() {
        for arrival in arrivals { arrival.close() }
        arrivals = []
    }
}
