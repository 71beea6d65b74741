import ShareLog
import SharePrimitives

/// The main app's clock in the demo: it starts at the demo's "now" and
/// moves forward only when the demo moves it (8 days, for the sweep), so
/// the run is the same whatever today's date.
final class DemoClock: WallClock {
    private let time: Locked<Timestamp>

    init(_ start: Timestamp) { time = Locked(start) }

    func now() -> Timestamp { time.withLock { $0 } }

    /// Moves the clock forward by `duration`.
    func advance(by duration: Duration) { time.withLock { $0 = $0.advanced(by: duration) } }
}
