import Foundation

/// The system's clock.
public struct SystemClock: WallClock {
    public init() {}
    public func now() -> Timestamp { Timestamp(Date()) }
}
