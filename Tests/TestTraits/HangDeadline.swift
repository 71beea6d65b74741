import Testing

extension Trait where Self == TimeLimitTrait {
    /// The time limit of every suite that runs in `Scripts/test`'s parallel
    /// phases, unless it needs longer: it catches a hang, it does not time
    /// anything (timings belong in the benchmark).
    ///
    /// Swift Testing marks every test of a parallel run started at once and
    /// times each from that mark, so a test's time includes its wait, behind
    /// hundreds of others, for one of two cores. In the main phase, which
    /// takes 70 to 110 s, a test that does nothing but read an in-memory
    /// stream has been timed at 54 s here and failed a one-minute limit at
    /// 89 s in CI. A limit must therefore outlast the whole phase it runs
    /// in, not the test's own work; five minutes is three times the longest
    /// phase seen, and each phase also has its own hard `timeout`.
    /// `Scripts/check-time-limits` refuses a shorter limit.
    public static var hangDeadline: Self { .timeLimit(.minutes(5)) }
}
