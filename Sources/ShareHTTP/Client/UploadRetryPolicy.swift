/// When an upload is tried again, and after how long (docs/HTTP.md
/// "Retries"). Every attempt carries the same `Idempotency-Key`, so a
/// retry of an upload whose first answer was lost makes no second share.
///
/// Retried: no answer at all (the gateway unreachable, the connection
/// broken, a timeout), 409 (the first attempt is still running), 429 (the
/// token's rate limit) and 500, 502, 503 and 504. Never retried: every
/// other 4xx, which says the request itself is wrong and would be again,
/// and a TLS failure, which needs an operator.
///
/// The wait before attempt n (n ≥ 2) is drawn evenly from the upper half
/// of `firstDelay × 2^(n−2)`, capped at `maximumDelay`: exponential
/// backoff with jitter, so clients that failed together do not come back
/// together. A `Retry-After` on a 429 or 503 replaces it when longer, up
/// to `maximumDelay`.
public struct UploadRetryPolicy: Hashable, Sendable {
    /// Attempts in all, the first included; 1 tries once.
    public var attempts: Int
    public var firstDelay: Duration
    public var maximumDelay: Duration

    public init(attempts: Int = 5, firstDelay: Duration = .milliseconds(500), maximumDelay: Duration = .seconds(8)) {
        precondition(attempts >= 1, "an upload is attempted at least once")
        self.attempts = attempts
        self.firstDelay = firstDelay
        self.maximumDelay = maximumDelay
    }

    /// Whether an answer with `status` is worth another attempt.
    public static func retries(status: Int) -> Bool {
        [409, 429, 500, 502, 503, 504].contains(status)
    }

    /// Whether a failure with no answer is worth another attempt.
    public static func retries(_ error: GatewayClientError) -> Bool {
        switch error {
        case .unreachable, .timedOut, .transfer: true
        default: false
        }
    }

    /// The wait before attempt `attempt` (2 or more), given the last
    /// answer's `Retry-After`, if any.
    public func delay(beforeAttempt attempt: Int, retryAfter: Duration?, using random: inout some RandomNumberGenerator) -> Duration {
        precondition(attempt >= 2, "the first attempt waits for nothing")
        let doublings = min(attempt - 2, 30)
        let nominal = min(maximumDelay, firstDelay * (1 << doublings))
        let nanoseconds = nominal.components.seconds * 1_000_000_000 + nominal.components.attoseconds / 1_000_000_000
        let drawn = Duration.nanoseconds(Int64.random(in: (nanoseconds / 2)...max(nanoseconds / 2, nanoseconds), using: &random))
        guard let retryAfter else { return drawn }
        return min(maximumDelay, max(drawn, retryAfter))
    }
}
