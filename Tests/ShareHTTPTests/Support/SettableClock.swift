import ShareLog
import Synchronization

/// A clock the tests set by hand: the store's, to create shares at chosen
/// times, and a gateway's, to cross a limit's refill or UTC midnight.
final class SettableClock: WallClock {
    private let milliseconds: Atomic<Int64>

    init(_ time: Timestamp) { milliseconds = Atomic(time.milliseconds) }

    func now() -> Timestamp { Timestamp(milliseconds: milliseconds.load(ordering: .relaxed)) }

    func set(_ time: Timestamp) { milliseconds.store(time.milliseconds, ordering: .relaxed) }

    func advance(by duration: Duration) { set(now().advanced(by: duration)) }
}
