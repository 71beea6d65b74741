/// A clock that always says the same time.
public struct FixedClock: WallClock {
    public let time: Timestamp
    public init(_ time: Timestamp) { self.time = time }
    public func now() -> Timestamp { time }
}
