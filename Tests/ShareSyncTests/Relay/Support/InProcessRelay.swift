import Foundation
import ShareLog
import ShareSync
import Synchronization
import TestSupport

/// A `StreamRelay` run in the test's process on a replica's own store
/// instance, on a thread of its own, so a test can set what the command
/// line does not (a heartbeat of an hour) and read its statistics.
///
/// `init` returns once the relay says it caught up; `stop` stops it and
/// waits for its thread, under a deadline. Not thread-safe: the test's
/// thread drives it.
final class InProcessRelay {
    let relay: StreamRelay
    private let context = SessionContext()
    private let outcome = Outcome()
    private var stopped = false

    /// What the relay's thread logged, and how its run ended.
    private final class Outcome: Sendable {
        let lines = Mutex<[String]>([])
        let ended = Mutex<Result<Void, RelayFailure>?>(nil)
    }

    /// Connects to `cluster` and starts relaying `replica`'s store on
    /// stream SHARELOG with one stream replica, its publisher's heartbeat
    /// `heartbeat`; waits up to `timeout` until it caught up.
    init(_ replica: RelayReplica, cluster: NatsCluster, heartbeat: Duration, timeout: Duration = .seconds(60)) throws {
        let connection = try JetStreamConnection(JetStreamConnection.Options(servers: cluster.clientURLs))
        let keyring = try StreamKeyring(path: replica.streamKey, now: RelayReplica.now)
        var options = StreamRelay.Options()
        options.stream.replicas = cluster.size
        options.clock = FixedClock(RelayReplica.now)
        options.heartbeat = heartbeat
        relay = StreamRelay(store: replica.store, connection: connection, keyring: keyring, options: options)
        let (relay, context, outcome) = (relay, context, outcome)
        let thread = Thread {
            let result = Result { () throws(RelayFailure) in
                try relay.run(context: context) { record in outcome.lines.withLock { $0.append(record.message) } }
            }
            outcome.ended.withLock { $0 = result }
        }
        thread.stackSize = 1 << 20
        thread.start()
        try Deadline.block(until: "the relay of \(replica.label) catches up", timeout: timeout, every: .milliseconds(1)) {
            outcome.lines.withLock { $0.contains { $0.hasPrefix("caught up with stream") } } || outcome.ended.withLock { $0 != nil }
        }
        if case .failure(let error) = outcome.ended.withLock({ $0 }) { throw error }
    }

    deinit { _ = try? stop() }

    /// Every line the relay logged so far.
    var lines: [String] { outcome.lines.withLock { $0 } }

    /// How the relay's run ended, once it ends by itself (a failure): waits
    /// up to `timeout` for that, without stopping it.
    func ending(timeout: Duration) throws -> Result<Void, RelayFailure> {
        try Deadline.block(until: "the relay's run ends by itself", timeout: timeout, every: .milliseconds(5)) {
            outcome.ended.withLock { $0 != nil }
        }
        stopped = true
        return outcome.ended.withLock { $0 }!
    }

    /// Stops the relay and waits up to 30 s for its thread to end;
    /// rethrows what it threw.
    func stop() throws {
        guard !stopped else { return }
        stopped = true
        context.stop()
        try Deadline.block(until: "the relay's thread ends", timeout: .seconds(30), every: .milliseconds(5)) {
            outcome.ended.withLock { $0 != nil }
        }
        try outcome.ended.withLock { $0 }?.get()
    }
}
