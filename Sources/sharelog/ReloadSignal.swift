import Dispatch
import Glibc

/// Turns SIGHUP into a reload, as daemons do: `serve`, `http` and `relay`
/// read their key or certificate files again, and keep what they had when
/// the new ones cannot be used (docs/OPERATIONS.md "Reloading on SIGHUP").
///
/// Installed only by processes that serve for long: anywhere else SIGHUP
/// keeps its default, the end of the process, which is what a hangup of
/// the terminal or of ssh should mean (`serve --stdio`, `sync --follow`).
enum ReloadSignal {
    /// Keeps the signal source alive for the life of the process.
    nonisolated(unsafe) private static var source: (any DispatchSourceSignal)?
    // Safe: `install` runs once, on the main thread, before any thread that
    // could send or read it starts, and nothing else touches `source`.

    /// Calls `onReload` on a Dispatch thread for each SIGHUP, never two at
    /// once: signals that come while one call runs make one more call.
    static func install(_ onReload: @escaping @Sendable () -> Void) {
        signal(SIGHUP, SIG_IGN)
        let made = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        made.setEventHandler { onReload() }
        made.resume()
        source = made
    }
}
