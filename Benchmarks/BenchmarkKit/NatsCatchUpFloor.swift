import Foundation
import ShareSync

/// The floor under the relay's catch-up row: a new durable consumer reading
/// a whole stream through the same libnats calls a new replica's relay
/// makes (`JetStreamConnection`, `makePullConsumer`, `PullConsumer.fetch`
/// with the relay's batch, `acknowledgeFetched`), and nothing else: no
/// store, no decoding, no cipher, no commit. What it takes is what the
/// NATS cluster and its client take; a relay cannot catch up faster.
enum NatsCatchUpFloor {
    /// The durable name of the consumer the floor makes on a stream; one
    /// per stream, made afresh (and so replicated as the stream is).
    static let durable = "bench-floor"

    /// How long a read took.
    struct Read {
        /// From before it connects to the cluster until the last message
        /// was fetched and acknowledged.
        let seconds: Double
        /// From before it connects until its consumer was made and bound.
        let consumerMade: Double
        /// The mean size of a message's body in bytes.
        let meanBodyBytes: Int
    }

    /// Reads all `count` messages of `stream` (subjects `settings`'
    /// `allSubjects`) through a consumer made afresh, acknowledging each
    /// batch as a relay does once it committed it.
    ///
    /// - Throws: `JetStreamError` when the cluster does not answer;
    ///   `BenchError.mismatch` when a fetch waits `timeout` for a message
    ///   before `count` came.
    static func read(_ count: Int, of settings: StreamSettings, servers: [String], timeout: Duration) throws -> Read {
        let stopwatch = Stopwatch()
        let connection = try JetStreamConnection(JetStreamConnection.Options(servers: servers))
        let consumer = try connection.makePullConsumer(
            stream: settings.name, durable: durable, filter: settings.allSubjects, startSequence: 1)
        let consumerMade = stopwatch.seconds
        var received = 0
        var bodyBytes = 0
        while received < count {
            let batch = try consumer.fetch(count: 1000, maxBytes: 1 << 20, timeout: timeout)
            guard !batch.isEmpty else {
                throw BenchError.mismatch("the floor's consumer of \(settings.name) got \(received) of \(count) messages, then none in \(timeout)")
            }
            received += batch.count
            bodyBytes += batch.reduce(0) { $0 + $1.body.count }
            try consumer.acknowledgeFetched()
        }
        return Read(seconds: stopwatch.seconds, consumerMade: consumerMade, meanBodyBytes: bodyBytes / max(received, 1))
    }
}
