import Foundation
import SharePrimitives

/// How many unknown record names each client may ask for, counted across
/// all its connections: a client that asks for many names nobody shared
/// is guessing, and each further answer is delayed.
///
/// A client is its address over TCP and its user on a Unix socket
/// (`SocketChannel.client`), so reconnecting does not start the count
/// again, and known names mixed in do not earn it back: only time does.
/// The rule is a leaky bucket (the generic cell rate algorithm): a client
/// may ask for `allowance` unknown names at once, and earns one back every
/// `interval`; a fetch that goes past that is delayed until its last
/// unknown name would have been allowed, at most `cap`. Record names have
/// 122 random bits, so this is defence in depth: it bounds a guesser to
/// one name an `interval` per client, and a slowed session holds a place
/// of the clips' pool only, never a main's.
///
/// Memory: one entry per client that asked for an unknown name within
/// the last `cap + allowance × interval`; older entries are dropped.
final class GuessingThrottle: Sendable {
    let allowance: Int
    let interval: Duration
    let cap: Duration
    /// Per client, when its bucket is empty again (the theoretical
    /// arrival time of the algorithm); past instants mean a full allowance.
    private let due = Locked<[String: ContinuousClock.Instant]>([:])

    init(allowance: Int, interval: Duration, cap: Duration) {
        self.allowance = max(allowance, 0)
        self.interval = interval
        self.cap = cap
    }

    /// A throttle with `options`' allowance, delay per name and cap.
    convenience init(_ options: SessionOptions) {
        self.init(allowance: options.unknownFetchAllowance, interval: options.unknownFetchDelay, cap: options.unknownFetchDelayCap)
    }

    /// Counts `unknown` names asked for by `client` at `now`; returns how
    /// long to wait before answering, nil for no wait.
    func charge(_ unknown: Int, from client: String, at now: ContinuousClock.Instant) -> Duration? {
        guard unknown > 0 else { return nil }
        return due.withLock { due in
            let start = max(due[client] ?? now, now)
            let end = start + interval * unknown
            // What stays owed is bounded, so that a guesser that stops is
            // forgiven within `cap` plus the allowance.
            due[client] = min(end, now + cap + interval * allowance)
            if due.count > Self.pruneAt { due = due.filter { $0.value > now } }
            let wait = end - (now + interval * allowance)
            return wait > .zero ? min(wait, cap) : nil
        }
    }

    /// Past this many clients, the ones with a full allowance are forgotten.
    private static let pruneAt = 4096
}
