/// Tells when a durable consumer has stalled: it answers every fetch with
/// idle heartbeats and nothing else while the stream holds messages after
/// the relay's cursor (`RelayConsumer`, "Stalls"). One did, once, after a
/// stream leader was killed and restarted: 60 messages short of the
/// stream's end, for two minutes, until the test gave up.
///
/// Fed after every fetch: `delivered()` after one that brought messages,
/// `foundNothing` after one that waited for nothing. A stall is two empty
/// fetches in a row with the stream ending past the cursor. A consumer
/// made afresh that still finds nothing means the rest is not for it
/// (other subjects, deleted messages): that end is remembered, and only a
/// stream that grows past it counts again.
struct ConsumerStallWatch {
    /// Empty fetches in a row that make a stall.
    static let threshold = 2

    /// Empty fetches in a row while the stream ended past the cursor.
    private var emptyFetchesBehind = 0
    /// The stream's last sequence when a consumer made afresh found
    /// nothing; 0 until one did.
    private var quietEnd: UInt64 = 0

    /// A fetch brought messages: the consumer moves.
    mutating func delivered() {
        emptyFetchesBehind = 0
    }

    /// A fetch waited for nothing, with the stream's last sequence at
    /// `streamEnd` and the cursor at `position`; `fresh` when the consumer
    /// was made afresh and has delivered nothing since.
    ///
    /// - Returns: true when the consumer has stalled and is to be made
    ///   afresh at the cursor's next sequence.
    mutating func foundNothing(streamEnd: UInt64, position: UInt64, fresh: Bool) -> Bool {
        guard streamEnd > max(position, quietEnd) else {
            emptyFetchesBehind = 0
            return false
        }
        if fresh {
            quietEnd = streamEnd
            emptyFetchesBehind = 0
            return false
        }
        emptyFetchesBehind += 1
        guard emptyFetchesBehind >= Self.threshold else { return false }
        emptyFetchesBehind = 0
        return true
    }
}
