internal import CNATS
import SharePrimitives

/// Ends the fetches of a consumer's thread from another thread: once
/// `interrupt()` was called, a `PullConsumer.fetch` in progress and every
/// later one (of any pull consumer made with this interrupter) throws at
/// once instead of waiting out its expiry. A relay interrupts its
/// consumer when it stops, so its fetches may wait long while idle.
///
/// Interrupting unsubscribes the client's subscription; the durable
/// consumer itself stays in JetStream (the client deletes only consumers
/// it made itself on subscribing, and the relay binds to its own).
/// `natsSubscription_Unsubscribe` is thread-safe in libnats, and a
/// subscription is destroyed only after its `PullConsumer` removed it
/// here (`forget`), so an interrupt never meets a destroyed one.
public final class PullInterrupter: Sendable {
    private struct State {
        /// What `OpaquePointer` lacks: a Sendable address of a subscription.
        var subscriptions: [UInt] = []
        var interrupted = false
    }

    private let state = Locked(State())

    public init() {}

    /// Ends every fetch in progress and to come.
    public func interrupt() {
        state.withLock { state in
            state.interrupted = true
            for address in state.subscriptions { natsSubscription_Unsubscribe(OpaquePointer(bitPattern: address)) }
        }
    }

    /// Starts watching `subscription`; unsubscribes it at once when
    /// `interrupt()` was called already.
    func watch(_ subscription: OpaquePointer) {
        state.withLock { state in
            if state.interrupted { natsSubscription_Unsubscribe(subscription) }
            state.subscriptions.append(UInt(bitPattern: subscription))
        }
    }

    /// Stops watching `subscription`, before it is destroyed.
    func forget(_ subscription: OpaquePointer) {
        state.withLock { state in state.subscriptions.removeAll { $0 == UInt(bitPattern: subscription) } }
    }
}
