/// A rate a client address may keep up: a burst of `burst` at once, then
/// one more every `interval`.
public struct RateLimit: Hashable, Sendable, CustomStringConvertible {
    public var burst: Int
    public var interval: Duration

    /// - Precondition: `burst >= 1` and `interval > 0`.
    public init(burst: Int, interval: Duration) {
        precondition(burst >= 1 && interval > .zero, "a rate limit allows at least one request, refilled over a positive interval")
        self.burst = burst
        self.interval = interval
    }

    /// Every request to `/appclip`, hits and misses: generous, since one
    /// carrier NAT address may stand for many people.
    public static let requests = RateLimit(burst: 100, interval: .milliseconds(20))
    /// Misses (400, 404, 410), far stricter: a burst of 20, then one every
    /// 20 seconds (180 an hour). A person mistypes rarely; a guesser is stopped.
    public static let misses = RateLimit(burst: 20, interval: .seconds(20))
    /// The write API's default per token: 100 at once, then 10 a second.
    public static let writes = RateLimit(burst: 100, interval: .milliseconds(100))

    public var description: String { "\(burst) at once, then one every \(interval)" }
}
