import Synchronization

/// Whether the watchdog killed the child; set from the watchdog's queue.
final class WatchdogFlag: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}
