import SharePrimitives
import Testing

/// Duration's units follow the one rule their doc states: waits round up,
/// reports truncate, everything saturates. The expected values are worked
/// out by hand from the durations' definitions.
@Suite struct DurationUnitsTests {
    @Test(arguments: [
        (Duration.nanoseconds(1), Int64(1), Int64(0)),
        (.microseconds(1500), 2, 1),
        (.milliseconds(7), 7, 7),
        (.seconds(2) + .nanoseconds(1), 2001, 2000),
        (.zero, 0, 0),
    ])
    func aWaitRoundsUpAndAReportTruncates(duration: Duration, toWait: Int64, whole: Int64) {
        #expect(duration.millisecondsToWait == toWait)
        #expect(duration.wholeMilliseconds == whole)
    }

    @Test func nanosecondsRoundTheSameWay() {
        let duration = Duration(secondsComponent: 3, attosecondsComponent: 1_500_000_001)
        #expect(duration.nanosecondsToWait == 3_000_000_002)
        #expect(duration.wholeNanoseconds == 3_000_000_001)
    }

    @Test func aNegativeDurationWaitsForNothingAndIsReportedTowardZero() {
        #expect(Duration.milliseconds(-5).millisecondsToWait == 0)
        #expect(Duration.milliseconds(-5).nanosecondsToWait == 0)
        #expect(Duration.microseconds(-1500).wholeMilliseconds == -1)
    }

    @Test func hugeDurationsSaturateInsteadOfTrapping() {
        let huge = Duration.seconds(Int64.max)
        #expect(huge.wholeNanoseconds == .max)
        #expect(huge.millisecondsToWait == .max)
        #expect(Duration.seconds(Int64.min).wholeMilliseconds == .min)
    }

    @Test func fractionsKeepTheirPart() {
        #expect(Duration.microseconds(2500).milliseconds == 2.5)
        #expect(Duration.milliseconds(1250).fractionalSeconds == 1.25)
    }
}
