import Foundation

/// Where ShareLog gets the current time; injected so that tests and the
/// CLI's `--now` can travel in time.
public protocol WallClock: Sendable {
    func now() -> Timestamp
}

/// The system's clock.
public struct SystemClock: WallClock {
    public init() {}
    public func now() -> Timestamp { Timestamp(Date()) }
}

/// A clock that always says the same time.
public struct FixedClock: WallClock {
    public let time: Timestamp
    public init(_ time: Timestamp) { self.time = time }
    public func now() -> Timestamp { time }
}
