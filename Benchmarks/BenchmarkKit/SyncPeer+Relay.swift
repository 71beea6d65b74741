import Foundation
import ShareLog
import ShareSync

/// `sharelog-bench relay`: the relay workload's peer process.
extension SyncPeer {
    /// How often the relay peer reads its relay's count of published events.
    static let publishedPollInterval: useconds_t = 1000
    /// The name of the thread that does it: the benchmark's instrument, not
    /// the relay, so the idle measurement leaves it out.
    public static let publishedPollThread = "bench-published"

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
    ///   events that the stream acknowledged has changed, read every
    ///   `publishedPollInterval` µs.
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
            Task.detached {
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
            let polling = Thread {
                // Foundation's `Thread.name` does not reach the kernel's
                // thread name, which the benchmark reads; this does.
                try? publishedPollThread.write(toFile: "/proc/thread-self/comm", atomically: false, encoding: .utf8)
                var printed = 0
                while !context.isStopping {
                    let published = relay.statistics.current.published
                    if published != printed {
                        printed = published
                        printLine("published \(published) \(monotonicNanoseconds())")
                    }
                    usleep(publishedPollInterval)
                }
            }
            polling.start()
            try relay.run(context: context) { line in
                if line.hasPrefix("caught up") { printLine("caught-up \(monotonicNanoseconds())") }
                FileHandle.standardError.write(Data("relay: \(line)\n".utf8))
            }
            return (0, nil)
        } catch {
            return (1, "\(error)")
        }
    }
}
