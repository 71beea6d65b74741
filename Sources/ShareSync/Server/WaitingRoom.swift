import Glibc

/// The connections a server has accepted but not heard from yet, held by
/// the accept thread without a thread of their own.
///
/// A connection gets its session thread, and a place under
/// `maxConnections`, only once its first bytes arrive (a hello, or a TLS
/// ClientHello). So connections that say nothing, however many, cannot
/// take the places of clients that speak: a well-behaved client speaks as
/// soon as it connects and leaves the room within one turn of the accept
/// loop. A guest that stays silent until its handshake deadline is
/// dropped then. When `capacity` guests wait, a newcomer takes the place
/// of the one that has waited longest, which is dropped: a client that
/// speaks at once loses its place only if `capacity` connections arrive
/// before its first bytes do.
///
/// Used by the accept thread alone.
struct WaitingRoom {
    /// A connection in the room, and when it was accepted: its handshake
    /// deadline runs from then.
    struct Guest {
        let channel: SocketChannel
        let acceptedAt: ContinuousClock.Instant
    }

    /// What one `wait` found. The guests in `spoke` and `expired` have left
    /// the room.
    struct Turn {
        /// The listener has a connection to accept.
        var acceptable = false
        /// The wake-up descriptor is readable.
        var woken = false
        /// Guests whose first bytes (or hang-up) arrived: due a session thread.
        var spoke: [Guest] = []
        /// Guests silent until their handshake deadline: due to be dropped.
        var expired: [Guest] = []
    }

    /// The most guests held at once.
    let capacity: Int
    /// How long a guest may stay silent: the server's handshake timeout.
    let timeout: Duration
    /// The guests, longest waiting first.
    private var guests: [Guest] = []

    init(capacity: Int, timeout: Duration) {
        self.capacity = max(capacity, 1)
        self.timeout = timeout
    }

    /// The guests waiting now.
    var count: Int { guests.count }

    /// Seats `channel`, accepted at `instant`. When the room was full,
    /// returns the guest that had waited longest, which has left it.
    mutating func admit(_ channel: SocketChannel, at instant: ContinuousClock.Instant) -> Guest? {
        let displaced = guests.count >= capacity ? guests.removeFirst() : nil
        guests.append(Guest(channel: channel, acceptedAt: instant))
        return displaced
    }

    /// Waits until the listener can accept, `wake` is readable, a guest
    /// speaks or hangs up, or the longest-waiting guest's deadline passes.
    mutating func wait(listener: Int32, wake: Int32) throws(TransportError) -> Turn {
        var entries = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
        entries += guests.map { pollfd(fd: $0.channel.descriptor, events: Int16(POLLIN), revents: 0) }
        let deadline = guests.first.map { $0.acceptedAt + timeout }
        let ready = poll(&entries, nfds_t(entries.count), Posix.pollTimeout(until: deadline) ?? 0)
        guard ready >= 0 || errno == EINTR else { throw .system(operation: "poll", errno: errno) }
        if entries[1].revents & Int16(POLLNVAL) != 0 { throw .system(operation: "poll on the wake-up descriptor \(wake)", errno: EBADF) }
        var turn = Turn(acceptable: entries[0].revents != 0, woken: entries[1].revents != 0)
        let now = ContinuousClock.now
        var staying: [Guest] = []
        for (guest, entry) in zip(guests, entries.dropFirst(2)) {
            if entry.revents != 0 {
                turn.spoke.append(guest)
            } else if now >= guest.acceptedAt + timeout {
                turn.expired.append(guest)
            } else {
                staying.append(guest)
            }
        }
        guests = staying
        return turn
    }

    /// Closes every guest's connection and empties the room.
    mutating func closeAll() {
        for guest in guests { guest.channel.close() }
        guests = []
    }
}
