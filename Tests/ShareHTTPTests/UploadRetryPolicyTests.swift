import ShareHTTP
import Testing

/// The retry policy of uploads (docs/HTTP.md "Retries"): which outcomes
/// are tried again, and how long each wait is.
@Suite struct UploadRetryPolicyTests {
    /// SplitMix64, seeded: the same draws on every run.
    struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    @Test func onlyAnswersAnotherAttemptCanChangeAreRetried() {
        #expect([409, 429, 500, 502, 503, 504].allSatisfy(UploadRetryPolicy.retries(status:)))
        #expect(![400, 401, 403, 404, 410, 413, 415, 422, 501].contains(where: UploadRetryPolicy.retries(status:)))
        #expect(UploadRetryPolicy.retries(.unreachable(url: "u", reason: "r")))
        #expect(UploadRetryPolicy.retries(.timedOut(url: "u", after: .seconds(20))))
        #expect(UploadRetryPolicy.retries(.transfer(url: "u", reason: "r")))
        #expect(!UploadRetryPolicy.retries(.tls(url: "u", reason: "r")))
        #expect(!UploadRetryPolicy.retries(.uploadRefused(url: "u", status: 401, reason: "r")))
    }

    @Test func waitsDoubleFromHalfASecondWithinTheirUpperHalfUpToEightSeconds() {
        let policy = UploadRetryPolicy()
        // Nominal waits before attempts 2…6: 0.5, 1, 2, 4, 8 s; then 8 s.
        let nominal: [Duration] = [.milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(8)]
        var random = Seeded(state: 29)
        for (index, wait) in nominal.enumerated() {
            let draws = (0..<200).map { _ in policy.delay(beforeAttempt: index + 2, retryAfter: nil, using: &random) }
            let (shortest, longest) = (draws.min()!, draws.max()!)
            #expect(shortest >= wait / 2 && longest <= wait, "attempt \(index + 2): \(shortest)…\(longest) within \(wait / 2)…\(wait)")
            #expect(longest - shortest > wait / 4, "attempt \(index + 2) is jittered across its upper half: \(shortest)…\(longest)")
        }
    }

    @Test func aLongerRetryAfterIsHonouredUpToTheLongestWait() {
        let policy = UploadRetryPolicy()
        var random = Seeded(state: 29)
        #expect(policy.delay(beforeAttempt: 2, retryAfter: .seconds(3), using: &random) == .seconds(3))
        #expect(policy.delay(beforeAttempt: 2, retryAfter: .seconds(120), using: &random) == .seconds(8))
        let drawn = policy.delay(beforeAttempt: 4, retryAfter: .zero, using: &random)
        #expect(drawn >= .seconds(1) && drawn <= .seconds(2), "a shorter Retry-After leaves the backoff: \(drawn)")
    }
}
