import Foundation

/// A thread that runs one throwing body, and hands back the
/// `RelayFailure` it threw.
///
/// `@unchecked Sendable`: `failure` is written by the thread before it
/// signals `done`, and read only after `join` waited for that signal.
final class RelayThread: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var failure: RelayFailure?
    private var joined = false

    init(name: String, _ body: @escaping @Sendable () throws(RelayFailure) -> Void) {
        let thread = Thread { [self] in
            do throws(RelayFailure) { try body() } catch { failure = error }
            done.signal()
        }
        thread.name = name
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Waits for the body to return; what it threw, if anything. Only the
    /// first call waits.
    func join() -> RelayFailure? {
        if !joined {
            done.wait()
            joined = true
        }
        return failure
    }
}
