import Foundation
import SharePrimitives
import Synchronization

/// What the sessions of one client or server share: whether they are
/// stopping, and the wake-up signals of those running, so that a stop (or
/// a commit to follow) reaches every session thread at once.
public final class SessionContext: Sendable {
    /// Set once by `stop()`; read lock-free at every step of every session.
    private let stopping = Atomic(false)
    /// The signals of the sessions running, by identity.
    private let signals = Locked<[ObjectIdentifier: WakeSignal]>([:])

    public init() {}

    /// Whether `stop()` was called.
    public var isStopping: Bool { stopping.load(ordering: .acquiring) }

    /// Asks every session to end at its next step: nothing half-applied,
    /// and an `error(shuttingDown)` to each peer. Safe from a signal
    /// handler's thread (a Dispatch source), and idempotent.
    public func stop() {
        stopping.store(true, ordering: .releasing)
        wakeAll()
    }

    /// Wakes every session: the store committed, or a stop.
    func wakeAll() {
        for signal in signals.withLock({ Array($0.values) }) { signal.signal() }
    }

    /// Sleeps `duration`, waking early when `stop()` is called.
    public func sleep(for duration: Duration) {
        guard let signal = try? registeredSignal() else { return }
        defer { release(signal) }
        let until = ContinuousClock.now + duration
        while !isStopping, ContinuousClock.now < until {
            if signal.wait(until: until) { signal.drain() }
        }
    }

    /// A new wake signal that `stop()` and `wakeAll()` reach, already
    /// signalled if the context is stopping; `release` it when done.
    func registeredSignal() throws(SyncFailure) -> WakeSignal {
        let signal: WakeSignal
        do { signal = try WakeSignal() } catch { throw .transport(error) }
        register(signal)
        return signal
    }

    /// Makes `stop()` and `wakeAll()` reach `signal`, made elsewhere (a
    /// server makes a session's before it admits the session, when its
    /// descriptors can still be freed); `release` it when done.
    func register(_ signal: WakeSignal) {
        signals.withLock { $0[ObjectIdentifier(signal)] = signal }
        if isStopping { signal.signal() }
    }

    /// Unregisters and closes a signal from `registeredSignal()` or `register`.
    func release(_ signal: WakeSignal) {
        _ = signals.withLock { $0.removeValue(forKey: ObjectIdentifier(signal)) }
        signal.close()
    }
}
