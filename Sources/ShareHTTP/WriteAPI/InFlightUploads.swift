import ShareLog
import SharePrimitives

/// The uploads this gateway is making now, by token and key: a second
/// request with the same key while the first is still running gets 409
/// (the idempotency-key draft), rather than waiting behind it. Within one
/// process only; two gateways on one store serialize on LMDB's write lock,
/// and the later one answers from the first one's entry.
final class InFlightUploads: Sendable {
    private let running = Locked<Set<[UInt8]>>([])

    /// Marks `key` running; false when it already is.
    func begin(_ key: [UInt8]) -> Bool {
        running.withLock { $0.insert(key).inserted }
    }

    /// Marks `key` done.
    func end(_ key: [UInt8]) {
        _ = running.withLock { $0.remove(key) }
    }
}
