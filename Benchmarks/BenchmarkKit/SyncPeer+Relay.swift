import Foundation
import ShareLog
import ShareSync

/// `sharelog-bench relay`: the relay workload's peer process.
extension SyncPeer {
    /// The name of the thread that waits for the relay's count of published
    /// events to change: the benchmark's instrument, not the relay, so the
    /// idle measurement leaves it out.
    public static let publishedWatchThread = "bench-published"

    /// `sharelog-bench relay`: relays the store at `store` (created if
    /// missing) through the JetStream stream `stream` (subjects
    /// `subjectPrefix.>`, 3 replicas: the default) on the cluster `nats`
    /// (comma-separated URLs), with the stream key file `streamKey`, until
    /// the benchmark goes. The same calls as `sharelog relay`, its clock
    /// fixed at `now` ms as `sharelog --now` would fix it.
    ///
    /// It prints, each with `CLOCK_MONOTONIC` in nanoseconds:
    /// - `ready`, once the store and the key are open;
    /// - `started NANOSECONDS`, just before it connects to the cluster;
    /// - `caught-up NANOSECONDS`, when the relay has applied the stream up
    ///   to its end and starts publishing;
    /// - `applied TOTAL NANOSECONDS` after each commit through the relay
    ///   that moved the log: TOTAL entries past the log's end at the start,
    ///   read from the store's commit feed (`ShareStore.commits()`) as soon
    ///   as it wakes (a replica that creates nothing logs only what it
    ///   applied);
    /// - `published TOTAL NANOSECONDS` when the relay's count of its own
    ///   events that the stream acknowledged has changed, as soon as the
    ///   relay counts it (`RelayStatistics.counts(after:timeout:)`).
    public static func relay(
        store path: String, nats: String, streamKey: String, stream: String, subjectPrefix: String, now: Int64
    ) -> (code: Int32, error: String?) {
        do {
            let clock = FixedClock(Timestamp(milliseconds: now))
            let keyring = try StreamKeyring(path: streamKey, now: clock.now())
            let store = try ShareStore.open(at: path, creatingIfMissing: true, options: options(now: now))
            let context = SessionContext()
            stopWhenOrphaned(context)
            // Nothing writes through this instance before the relay runs:
            // every later commit it announces is the relay's.
            let start = try store.lastPosition()
            let commits = try store.commits()
            // On the commit watch's own thread, not Swift's global pool: a
            // process that has used the pool's threads runs libdispatch's
            // 1 Hz pool monitor for the rest of its life, which `sharelog
            // relay` does not, and the idle measurement would count it.
            Task.detached(executorPreference: CommitWatchExecutor.shared) {
                var printed = start
                for await position in commits where position > printed {
                    printed = position
                    printLine("applied \(position - start) \(monotonicNanoseconds())")
                }
            }
            printLine(readyLine)
            printLine("started \(monotonicNanoseconds())")
            var settings = StreamSettings()
            settings.name = stream
            settings.subjectPrefix = subjectPrefix
            var relayOptions = StreamRelay.Options()
            relayOptions.clock = clock
            relayOptions.stream = settings
            let connection = try JetStreamConnection(JetStreamConnection.Options(servers: nats.split(separator: ",").map(String.init)))
            let relay = StreamRelay(store: store, connection: connection, keyring: keyring, options: relayOptions)
            let watching = Thread {
                // Foundation's `Thread.name` does not reach the kernel's
                // thread name, which the benchmark reads; this does.
                try? publishedWatchThread.write(toFile: "/proc/thread-self/comm", atomically: false, encoding: .utf8)
                var seen = relay.statistics.current
                while !context.isStopping {
                    let now = relay.statistics.counts(after: seen, timeout: .seconds(1))
                    if now.published != seen.published {
                        printLine("published \(now.published) \(monotonicNanoseconds())")
                    }
                    seen = now
                }
            }
            watching.start()
            try relay.run(context: context) { record in
                if record.event == "relay.caughtUp" { printLine("caught-up \(monotonicNanoseconds())") }
                FileHandle.standardError.write(Data("relay: \(record.message)\n".utf8))
            }
            return (0, nil)
        } catch {
            return (1, "\(error)")
        }
    }
}
