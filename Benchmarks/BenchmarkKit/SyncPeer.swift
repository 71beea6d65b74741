import Foundation
import ShareLog
import ShareSync

/// The processes on the far side of the sync workloads: `sharelog-bench
/// serve`, `sharelog-bench follow` and `sharelog-bench relay`
/// (`SyncPeer+Relay.swift`). Each runs the same ShareSync calls that
/// `sharelog serve`, `sharelog sync --follow` and `sharelog relay` run,
/// with their default options, and adds only what the benchmark reads: a
/// `ready` line, and for the follower and the relay a line per commit.
///
/// Each process stops by itself when the benchmark that started it is
/// gone (its parent process changes), so a killed benchmark leaves no peer
/// behind.
public enum SyncPeer {
    /// What a peer prints on standard output once it listens or runs.
    public static let readyLine = "ready"

    /// The sessions a benchmark server admits at once
    /// (`--max-connections`, and as many clip sessions, `--max-clip-sessions`):
    /// twice the most concurrent clip clients and
    /// more. A client's next session can arrive while the server's thread
    /// for its last one is still ending, so 50 clients back to back can
    /// hold more than 64 places; with the default of 64 some were told
    /// `busy` (BENCHMARKS.md).
    public static let maxConnections = 256

    /// `sharelog-bench serve`: serves the store at `store` on `listen`
    /// (`unix:PATH`) with `maxConnections`, until the benchmark goes or the
    /// process is killed. The store's clock is fixed at `now` ms, as
    /// `sharelog serve --now` would.
    ///
    /// - Returns: the exit code and, on failure, the reason.
    public static func serve(store path: String, listen: String, now: Int64) -> (code: Int32, error: String?) {
        do {
            let store = try ShareStore.open(at: path, options: options(now: now))
            var configuration = SyncServerConfiguration(endpoint: try Endpoint(parsing: listen))
            configuration.maxConnections = maxConnections
            configuration.maxClipSessions = maxConnections
            let server = SyncServer(store: store, configuration: configuration)
            let context = SessionContext()
            stopWhenOrphaned(context)
            try server.serve(context: context) { _ in printLine(readyLine) }
            return (0, nil)
        } catch {
            return (1, "\(error)")
        }
    }

    /// `sharelog-bench follow`: pulls from `connect` into the store at
    /// `store` (created if missing) with `--follow`, reconnecting as `sharelog
    /// sync --follow` does, until the benchmark goes. After each commit that
    /// brought new events it prints `applied TOTAL NANOSECONDS`: the events
    /// applied since it started, and `CLOCK_MONOTONIC` read after the commit
    /// returned (the clock every process on the machine shares).
    public static func follow(store path: String, connect: String, now: Int64) -> (code: Int32, error: String?) {
        do {
            let store = try ShareStore.open(at: path, creatingIfMissing: true, options: options(now: now))
            var request = SyncRequest(endpoint: try Endpoint(parsing: connect))
            request.directions = .pull
            let context = SessionContext()
            stopWhenOrphaned(context)
            printLine(readyLine)
            var earlierSessions = 0
            var printed = 0
            SyncClient.follow(request, store: store, context: context, onSession: { result in
                if case .success(let summary) = result { earlierSessions += summary.eventsApplied }
                if case .failure(let failure) = result { FileHandle.standardError.write(Data("follow: \(failure)\n".utf8)) }
            }, progress: { summary in
                let total = earlierSessions + summary.eventsApplied
                guard total != printed else { return }
                printed = total
                printLine("applied \(total) \(monotonicNanoseconds())")
            })
            return (0, nil)
        } catch {
            return (1, "\(error)")
        }
    }

    /// `CLOCK_MONOTONIC` in nanoseconds: one clock for every process of the
    /// machine, so a follower's stamp and the benchmark's compare.
    public static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    static func options(now: Int64) -> ShareStore.Options {
        var options = ShareStore.Options()
        options.clock = FixedClock(Timestamp(milliseconds: now))
        return options
    }

    /// One line on standard output, written at once (not buffered).
    static func printLine(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// The kernel's name of the thread `stopWhenOrphaned` starts.
    public static let orphanWatchThread = "bench-orphan"

    /// Stops `context` when the parent process is gone: checked every 2 s
    /// on a thread of its own. A peer is stopped by its benchmark; this is
    /// only for a benchmark that died, so it may be slow, and it must be
    /// rare: a check every 100 ms was most of an idle peer's CPU time, which
    /// the follow workload measures.
    static func stopWhenOrphaned(_ context: SessionContext) {
        let parent = getppid()
        Thread.detachNewThread {
            // Named, so that an idle measurement can leave it out: it is
            // the benchmark's, not the relay's.
            try? orphanWatchThread.write(toFile: "/proc/thread-self/comm", atomically: false, encoding: .utf8)
            while getppid() == parent { sleep(2) }
            context.stop()
        }
    }
}
