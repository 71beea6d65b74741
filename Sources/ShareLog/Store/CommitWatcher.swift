import Foundation
import LMDB
import SharePrimitives

/// Announces commits made by other processes (and other `ShareStore`
/// instances) to one instance's `CommitFeed`: a thread that sleeps on the
/// store's `CommitSignal` while the feed has subscribers, and after each
/// wake, or each `fallback` without one, reads the log's end and publishes
/// it. The feed yields only larger positions, so a spurious wake, a
/// timeout or this instance's own commit (which it also publishes
/// directly) announces nothing twice.
///
/// The thread starts with the first subscriber (`start`) and ends at the
/// first wake that finds none left, so it lingers at most one `fallback`
/// after the last subscriber goes; `stop` ends it at once. Without a signal
/// (its file missing or unmappable) it reads the log's end every
/// `fallback`. It reads the log through `readPosition`, which holds the
/// store weakly: the thread never keeps a store open.
///
/// Costs nothing while nobody subscribes, and while the store is idle one
/// futex wait per `fallback`. A commit reaches a subscriber after one
/// thread wake and one read transaction.
final class CommitWatcher: Sendable {
    private struct State {
        var running = false
        var stopped = false
    }

    private let signal: CommitSignal?
    private let feed: CommitFeed
    private let fallback: Duration
    /// Its condition serves the wait that has no signal to sleep on: a
    /// `stop()` changes the state, which wakes that wait.
    private let state = LockedCondition(State())

    init(signal: CommitSignal?, feed: CommitFeed, fallback: Duration) {
        self.signal = signal
        self.feed = feed
        self.fallback = fallback
    }

    /// The counter as the thread `start` makes will first take it. A
    /// subscriber reads it before its first read of the log, so that a
    /// commit between that read and the thread's start moves the counter
    /// past it and is announced at once (read after, such a commit was
    /// announced only at the fallback).
    var baseline: UInt32 { signal?.value ?? 0 }

    /// Starts the thread unless it runs or the watcher was stopped; a new
    /// thread waits first for the counter to move from `baseline`.
    /// `readPosition` gives the log's end, nil once the store is gone.
    func start(from baseline: UInt32, readPosition: @escaping @Sendable () -> UInt64?) {
        let starting = state.withLock { state -> Bool in
            guard !state.running, !state.stopped else { return false }
            state.running = true
            return true
        }
        guard starting else { return }
        let thread = Thread { [self] in watch(from: baseline, readPosition) }
        thread.name = "sharelog-commit-watch"
        thread.stackSize = 256 << 10
        thread.start()
    }

    /// Ends the thread, if it runs, and for good: at once, or after one
    /// `fallback` when the stop falls between the thread's last look and
    /// its futex wait. Wakes this store's waiters in other processes too,
    /// which find nothing new.
    func stop() {
        let wasRunning = state.withLock { state -> Bool in
            state.stopped = true
            return state.running
        }
        guard wasRunning else { return }
        signal?.wakeWaiters()
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    private func watch(from baseline: UInt32, _ readPosition: () -> UInt64?) {
        var seen = baseline
        while true {
            if let signal {
                if !isStopped { signal.wait(whileValueIs: seen, timeout: fallback) }
            } else {
                _ = state.wait(until: { $0.stopped ? () : nil }, deadline: .now + fallback)
            }
            let ending = state.withLock { state -> Bool in
                guard state.stopped || !feed.isWatched else { return false }
                state.running = false
                return true
            }
            if ending { return }
            // The counter is read before the log: a commit after this read
            // moves it again, and the next wait returns at once.
            seen = signal?.value ?? 0
            guard let position = readPosition() else {
                state.withLock { $0.running = false }
                return
            }
            feed.publish(position)
        }
    }
}
