import Foundation
import ShareSync
import Synchronization

/// The floor under the relay's delay row: one message at a time, published
/// to a stream of its own with the call replica A's relay makes
/// (`JetStreamConnection.publish`, which waits for the stream's
/// acknowledgement), and delivered to a durable pull consumer that waits
/// for it with the fetch replica B's relay makes, on a thread of its own.
/// No store, no codec, no cipher and no commit on either side: what is
/// left is the cluster's replication, acknowledgement and delivery, and
/// the client's. A relay's delay is this plus A's wake and B's durable
/// commit.
///
/// One thread publishes (`roundTrip`); the floor's own thread fetches
/// until `stop`.
final class NatsDelayFloor {
    /// What one message took, in seconds from just before its publish.
    struct Times {
        /// Until the publish returned, acknowledged by the stream.
        let acknowledged: Double
        /// Until the waiting consumer's fetch returned it.
        let delivered: Double
    }

    /// What the consumer's thread tells the publishing one: whether its
    /// consumer is made, the arrival stamps (`CLOCK_MONOTONIC`
    /// nanoseconds, in delivery order), and why it ended, if it did.
    private struct Deliveries {
        var ready = false
        var stamps: [UInt64] = []
        var failure: String?
    }

    /// What both threads hold. `changed` is signalled at each change of
    /// `deliveries`, `ended` once when the consumer's thread ends.
    private final class Shared: Sendable {
        let deliveries = Mutex(Deliveries())
        let changed = DispatchSemaphore(value: 0)
        let ended = DispatchSemaphore(value: 0)
        let interrupter = PullInterrupter()

        func update(_ change: (inout Deliveries) -> Void) {
            deliveries.withLock { change(&$0) }
            changed.signal()
        }

        /// Waits until `found` returns a value, up to `timeout` from now.
        ///
        /// - Throws: `BenchError` when the consumer's thread ended first,
        ///   or `timeout` passed.
        func wait<T>(_ what: String, timeout: Duration, for found: (Deliveries) -> T?) throws -> T {
            let (seconds, attoseconds) = timeout.components
            let deadline = DispatchTime.now() + Double(seconds) + Double(attoseconds) * 1e-18
            while true {
                let (result, failure) = deliveries.withLock { (found($0), $0.failure) }
                if let result { return result }
                if let failure { throw BenchError.process("the floor's consumer stopped: \(failure)") }
                guard changed.wait(timeout: deadline) == .success else {
                    throw BenchError.mismatch("the floor's consumer did not \(what) within \(timeout)")
                }
            }
        }
    }

    private let connection: JetStreamConnection
    private let settings: StreamSettings
    private let shared = Shared()
    private var published = 0

    /// Connects to `servers`, then on the floor's own thread makes the
    /// stream `stream` (replicated as a relay's is: 3 times) and its
    /// consumer, and fetches; returns once the consumer is made.
    ///
    /// - Throws: `JetStreamError` or `BenchError` when the cluster does
    ///   not make them within `timeout`.
    init(servers: [String], stream: String, timeout: Duration) throws {
        connection = try JetStreamConnection(JetStreamConnection.Options(servers: servers))
        settings = StreamSettings(name: stream, subjectPrefix: stream.lowercased())
        Thread { [connection, settings, shared] in Self.consume(settings, through: connection, shared) }.start()
        try shared.wait("start", timeout: timeout) { $0.ready ? () : nil }
    }

    deinit { stop() }

    /// Publishes `body` and waits for its delivery, up to `timeout` for each.
    ///
    /// - Throws: `JetStreamError` when the publish fails; `BenchError`
    ///   when the consumer stopped or did not get it within `timeout`.
    func roundTrip(body: [UInt8], timeout: Duration) throws -> Times {
        let index = published
        published += 1
        let message = OutgoingMessage(subject: "\(settings.subjectPrefix).floor", messageID: "floor-\(index)", body: body)
        let start = SyncPeer.monotonicNanoseconds()
        _ = try connection.publish([message], timeout: timeout)
        let acknowledged = SyncPeer.monotonicNanoseconds()
        let arrival = try shared.wait("get message \(index + 1)", timeout: timeout) { $0.stamps.count > index ? $0.stamps[index] : nil }
        return Times(acknowledged: Double(acknowledged - start) * 1e-9, delivered: Double(arrival - start) * 1e-9)
    }

    /// Ends the consumer's fetch and waits for its thread; a second call
    /// does nothing more.
    func stop() {
        shared.interrupter.interrupt()
        shared.ended.wait()
        shared.ended.signal()
    }

    /// The consumer's thread: makes the stream and the consumer, then
    /// fetches, stamps each message as it arrives and acknowledges it,
    /// until interrupted.
    private static func consume(_ settings: StreamSettings, through connection: JetStreamConnection, _ shared: Shared) {
        defer { shared.ended.signal() }
        do {
            _ = try connection.createStream(settings)
            let consumer = try connection.makePullConsumer(
                stream: settings.name, durable: NatsCatchUpFloor.durable, filter: settings.allSubjects, startSequence: 1,
                interrupter: shared.interrupter)
            shared.update { $0.ready = true }
            while true {
                let batch = try consumer.fetch(count: 1000, maxBytes: 1 << 20, timeout: .seconds(5))
                let now = SyncPeer.monotonicNanoseconds()
                try consumer.acknowledgeFetched()
                if !batch.isEmpty { shared.update { $0.stamps.append(contentsOf: repeatElement(now, count: batch.count)) } }
            }
        } catch {
            shared.update { $0.failure = "\(error)" }
        }
    }
}
