import ShareLog
import Synchronization

/// The clock of a benchmark store: set by the benchmark, so that every
/// system stamps the same creation and expiry times.
final class BenchClock: WallClock {
    private let milliseconds = Atomic<Int64>(0)

    func now() -> Timestamp { Timestamp(milliseconds: milliseconds.load(ordering: .relaxed)) }

    func set(_ time: Int64) { milliseconds.store(time, ordering: .relaxed) }
}
