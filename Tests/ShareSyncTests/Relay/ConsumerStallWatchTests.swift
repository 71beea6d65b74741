@testable import ShareSync
import Testing
import TestTraits

/// When a consumer that answers fetches with nothing is taken for stalled
/// and made again: only after two empty fetches in a row with the stream
/// ending past the cursor, never for a stream the cursor has reached, and
/// not again for what a consumer made afresh found nothing of.
@Suite(.hangDeadline) struct ConsumerStallWatchTests {
    @Test func twoEmptyFetchesInARowBehindTheStreamsEndAreAStall() {
        var watch = ConsumerStallWatch()
        #expect(watch.foundNothing(streamEnd: 1350, position: 1290, fresh: false) == false)
        #expect(watch.foundNothing(streamEnd: 1350, position: 1290, fresh: false) == true)
        // Counting starts over after a stall.
        #expect(watch.foundNothing(streamEnd: 1350, position: 1290, fresh: false) == false)
    }

    @Test func aDeliveryInBetweenStartsTheCountOver() {
        var watch = ConsumerStallWatch()
        #expect(watch.foundNothing(streamEnd: 20, position: 10, fresh: false) == false)
        watch.delivered()
        #expect(watch.foundNothing(streamEnd: 30, position: 20, fresh: false) == false)
        #expect(watch.foundNothing(streamEnd: 30, position: 20, fresh: false) == true)
    }

    @Test func aCursorAtTheStreamsEndIsNeverAStall() {
        var watch = ConsumerStallWatch()
        for _ in 0..<5 { #expect(watch.foundNothing(streamEnd: 40, position: 40, fresh: false) == false) }
        // Nor does a caught-up fetch between two behind count as a stall.
        #expect(watch.foundNothing(streamEnd: 41, position: 40, fresh: false) == false)
        #expect(watch.foundNothing(streamEnd: 41, position: 41, fresh: false) == false)
        #expect(watch.foundNothing(streamEnd: 42, position: 41, fresh: false) == false)
    }

    /// A consumer made afresh at the cursor that finds nothing up to the
    /// stream's end: what lies there is not for it (other subjects,
    /// deleted messages), so it is not made again until the stream grows.
    @Test func whatAFreshConsumerFoundNothingOfIsNotAStallAgain() {
        var watch = ConsumerStallWatch()
        #expect(watch.foundNothing(streamEnd: 100, position: 60, fresh: true) == false)
        for _ in 0..<4 { #expect(watch.foundNothing(streamEnd: 100, position: 60, fresh: false) == false) }
        #expect(watch.foundNothing(streamEnd: 101, position: 60, fresh: false) == false)
        #expect(watch.foundNothing(streamEnd: 101, position: 60, fresh: false) == true)
    }
}
