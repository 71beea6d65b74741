import Foundation
import Glibc
import Synchronization
import TestSupport
import Testing
@testable import ShareSync
import TestTraits

/// Wake-ups that race a session's end. A commit (the server's commit watch)
/// or a stop calls `SessionContext.wakeAll()` on one thread while, on
/// another, a session that just ended releases its signal
/// (`SessionContext.release`, which closes it). The wake-up must then be
/// lost quietly: never a write to the signal's pipe once its reading end
/// has closed, nor to its descriptor numbers once another open took them
/// (here a pipe whose reader is gone: in a server, another session's
/// socket, whose peer may be gone too). Either write raises SIGPIPE, which
/// ended a ThreadSanitizer run of SessionFlowTests in CI.
///
/// Also run under ThreadSanitizer (`Scripts/test`).
@Suite(.hangDeadline, .ownThread) struct WakeSignalTests {
    @Test func wakingSessionsWhileTheyReleaseTheirSignalsRaisesNoSIGPIPE() throws {
        let context = SessionContext()
        let race = Race()
        // The waker blocks SIGPIPE in its own thread only, and counts what
        // its writes raise (a write to a pipe without a reader sends it to
        // the writing thread), so a regression fails this test instead of
        // ending every test in the process; no other thread's mask changes.
        let waker = Thread {
            var pipeSignal = sigset_t()
            sigemptyset(&pipeSignal)
            sigaddset(&pipeSignal, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
            while race.running.load(ordering: .acquiring) {
                context.wakeAll()
                race.wakes.add(1, ordering: .relaxed)
                var pending = sigset_t()
                sigpending(&pending)
                if sigismember(&pending, SIGPIPE) == 1 {
                    race.pipeSignals.add(1, ordering: .relaxed)
                    var now = timespec(tv_sec: 0, tv_nsec: 0)
                    _ = sigtimedwait(&pipeSignal, nil, &now)
                }
            }
            race.finished.add(1, ordering: .releasing)
        }
        // Sessions ending a few at a time, as a server's do. The numbers
        // their signals free go at once to pipes whose reader is closed, as
        // another thread's next open would take them.
        let sessions = (0..<2).map { _ in
            Thread {
                while race.running.load(ordering: .acquiring) {
                    guard let signals = try? (0..<8).map({ _ in try context.registeredSignal() }) else { break }
                    usleep(200)
                    for signal in signals { context.release(signal) }
                    race.releases.add(signals.count, ordering: .relaxed)
                    let traps = (0..<16).compactMap { _ in Self.pipeWithoutReader() }
                    usleep(500)
                    traps.forEach { close($0) }
                }
                race.finished.add(1, ordering: .releasing)
            }
        }
        // Busy threads, so that the waker is often preempted, as on a
        // loaded CI machine, between its check that a signal is open and
        // its write.
        let busy = (0..<3).map { _ in
            Thread {
                while race.running.load(ordering: .relaxed) {}
                race.finished.add(1, ordering: .releasing)
            }
        }
        waker.start()
        sessions.forEach { $0.start() }
        busy.forEach { $0.start() }
        // Long enough for thousands of releases on two loaded cores, even
        // under ThreadSanitizer; a SIGPIPE ends the wait early.
        let until = ContinuousClock.now + .seconds(3)
        while ContinuousClock.now < until, race.pipeSignals.load(ordering: .relaxed) == 0 {
            usleep(10_000)
        }
        race.running.store(false, ordering: .releasing)
        try Deadline.block(until: "the test's threads stop", timeout: .seconds(60)) {
            race.finished.load(ordering: .acquiring) == 6
        }
        let raised = race.pipeSignals.load(ordering: .acquiring)
        let wakes = race.wakes.load(ordering: .acquiring), releases = race.releases.load(ordering: .acquiring)
        #expect(raised == 0, "wake-ups raised SIGPIPE \(raised) times (\(wakes) wake-ups, \(releases) signals released)")
        #expect(wakes > 0 && releases > 0)
    }

    /// The write end of a new pipe whose reading end is already closed, or
    /// nil when no descriptor is left.
    private static func pipeWithoutReader() -> Int32? {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        close(ends[0])
        return ends[1]
    }
}

/// What the threads of the test share (atomics, which ThreadSanitizer sees).
private final class Race: Sendable {
    let running = Atomic(true)
    let wakes = Atomic(0), releases = Atomic(0), pipeSignals = Atomic(0), finished = Atomic(0)
}
