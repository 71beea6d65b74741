/// `Duration` in the integer units that C calls and reports take.
///
/// **The rounding rule, stated once.** A duration a thread *waits* for
/// rounds up to the unit (`…ToWait`): a wait never ends before its
/// deadline, so a caller never wakes a fraction of a unit early and spins
/// on the rest. A duration *reported* or *counted* truncates toward zero
/// (`whole…`): it never claims time that did not pass. Every conversion
/// saturates at the type's ends instead of trapping, and a negative
/// duration waits for nothing.
extension Duration {
    private static let attosecondsPerNanosecond: Int64 = 1_000_000_000
    private static let attosecondsPerMillisecond: Int64 = 1_000_000_000_000_000

    /// Whole nanoseconds, truncated toward zero, saturating.
    package var wholeNanoseconds: Int64 {
        Self.saturating(components.seconds, times: 1_000_000_000, plus: components.attoseconds / Self.attosecondsPerNanosecond)
    }

    /// Whole milliseconds, truncated toward zero, saturating: what `--json`
    /// outputs and log lines report.
    package var wholeMilliseconds: Int64 {
        Self.saturating(components.seconds, times: 1000, plus: components.attoseconds / Self.attosecondsPerMillisecond)
    }

    /// Milliseconds with their fraction, for figures people read.
    package var milliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }

    /// Seconds with their fraction (`TimeInterval`'s unit).
    package var fractionalSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// Nanoseconds to wait: rounded up, 0 for a negative duration,
    /// saturating (a futex's or a semaphore's timeout).
    package var nanosecondsToWait: Int64 {
        guard self > .zero else { return 0 }
        let remainder = components.attoseconds % Self.attosecondsPerNanosecond
        return Self.saturating(
            components.seconds, times: 1_000_000_000, plus: components.attoseconds / Self.attosecondsPerNanosecond + (remainder > 0 ? 1 : 0))
    }

    /// Milliseconds to wait: rounded up, 0 for a negative duration,
    /// saturating (`poll`'s and libnats's timeouts).
    package var millisecondsToWait: Int64 {
        guard self > .zero else { return 0 }
        let remainder = components.attoseconds % Self.attosecondsPerMillisecond
        return Self.saturating(
            components.seconds, times: 1000, plus: components.attoseconds / Self.attosecondsPerMillisecond + (remainder > 0 ? 1 : 0))
    }

    /// `seconds * scale + fraction` with both steps saturating at the ends
    /// of `Int64`.
    private static func saturating(_ seconds: Int64, times scale: Int64, plus fraction: Int64) -> Int64 {
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: scale)
        if overflow { return seconds < 0 ? .min : .max }
        let (sum, carried) = scaled.addingReportingOverflow(fraction)
        if carried { return fraction < 0 ? .min : .max }
        return sum
    }
}
