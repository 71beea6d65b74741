import ShareLog

/// The time rate limits run on: CLOCK_MONOTONIC, as a `Timestamp` counted
/// from boot. It never steps back when the wall clock is set (NTP), and a
/// gateway given a fixed wall clock (`--now`) still sees time pass, so its
/// allowances refill. Good only for intervals: never show it as a date.
public struct MonotonicClock: WallClock {
    public init() {}
    public func now() -> Timestamp { Timestamp(milliseconds: MonotonicTime.milliseconds) }
}
