import Foundation
import SharePrimitives

/// Maintains a store on a thread of its own for as long as a process runs:
/// a pass (`ShareStore.maintain`) at start, then every
/// `schedule.sweepInterval`, trimming on the first pass and then every
/// `schedule.trimInterval`. What `sharelog serve` runs by default.
///
/// It holds the store's maintenance lock from its first pass until it
/// stops, so one process maintains a store at a time: another scheduler,
/// or `sharelog maintain --once`, finds the lock held and skips its pass.
/// A scheduler that found it held tries again at each pass, and takes over
/// when the holder stops or dies.
///
/// Intervals are measured on `ContinuousClock` (monotonic); which shares
/// are due is the store's clock's to say. A pass that another process
/// skipped, or that failed, is reported and the next one comes on time: a
/// failure (a full disk, say) is often over by then. A trim that was due
/// is tried again by every pass until one trims.
///
/// `stop()` ends the thread after the pass in progress, and waits for it;
/// stop the scheduler before closing its store.
public final class MaintenanceScheduler: Sendable {
    private struct State {
        var started = false
        var stopping = false
        var finished = false
    }

    private let store: ShareStore
    private let schedule: MaintenanceSchedule
    private let onPass: @Sendable (Result<MaintenanceReport, ShareLogError>) -> Void
    private let state = LockedCondition(State())

    /// A scheduler for `store`, which reports each pass to `onPass`, on
    /// the scheduler's thread. Nothing runs until `start()`.
    public init(
        store: ShareStore, schedule: MaintenanceSchedule = MaintenanceSchedule(),
        onPass: @escaping @Sendable (Result<MaintenanceReport, ShareLogError>) -> Void
    ) {
        precondition(schedule.sweepInterval > .zero, "maintenance runs at an interval longer than zero")
        self.store = store
        self.schedule = schedule
        self.onPass = onPass
    }

    /// Starts the thread, which runs the first pass at once. Call once.
    public func start() {
        state.withLock { state in
            precondition(!state.started, "a maintenance scheduler starts once")
            state.started = true
        }
        let thread = Thread { [self] in run() }
        thread.name = "sharelog-maintenance"
        thread.start()
    }

    /// Ends the thread once its pass in progress ends, and waits for that.
    /// Idempotent; returns at once if the scheduler never started.
    public func stop() {
        let running = state.withLock { state -> Bool in
            state.stopping = true
            return state.started
        }
        guard running else { return }
        state.wait { $0.finished ? () : nil }
    }

    private func run() {
        defer { state.withLock { $0.finished = true } }
        var lock: MaintenanceLock?
        var lastTrim: ContinuousClock.Instant?
        while true {
            let trimming = schedule.trimInterval.map { interval in lastTrim.map { ContinuousClock.now - $0 >= interval } ?? true } ?? false
            let outcome = Result { () throws(ShareLogError) in
                let now = store.clock.now()
                if lock == nil { lock = try MaintenanceLock.acquire(inDirectory: store.path) }
                guard lock != nil else { return MaintenanceReport(at: now, ran: false) }
                return try store.maintenancePass(at: now, trimming: trimming, schedule: schedule)
            }
            if case .success(let report) = outcome, report.trim != nil { lastTrim = .now }
            onPass(outcome)
            let stopping = state.wait(until: { $0.stopping ? true : nil }, deadline: .now + schedule.sweepInterval) ?? false
            if stopping {
                // Released before `finished` is set, so that `stop()`
                // returns with the lock free for another maintainer.
                lock = nil
                return
            }
        }
    }
}
