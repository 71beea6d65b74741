import ShareLog
import Synchronization

/// The writer's clock: it says the time the writer last set, so every
/// operation's time is known before the operation starts and can be printed
/// in its `begin` line. Sweeps then have due shares after a few steps.
public final class SteppedClock: WallClock {
    private let milliseconds: Atomic<Int64>

    public init(_ start: Int64) { milliseconds = Atomic(start) }

    public func now() -> Timestamp { Timestamp(milliseconds: milliseconds.load(ordering: .relaxed)) }

    /// Sets the time the next operation sees.
    public func set(_ time: Int64) { milliseconds.store(time, ordering: .relaxed) }
}
