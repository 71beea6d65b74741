import Dispatch
import Foundation
import ShareSync

/// Turns SIGINT and SIGTERM into `SessionContext.stop()`, so a server or a
/// following sync ends its sessions at their next step, with nothing
/// half-applied, instead of dying mid-write. SIGPIPE is ignored: a peer
/// that goes away is an error on the write, not a signal.
enum StopSignals {
    /// Keeps the signal sources alive for the life of the process.
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []
    // Safe: `install` runs once, on the main thread, before any session
    // thread starts, and nothing else touches `sources`.

    static func install(_ context: SessionContext, onStop: @escaping @Sendable (Int32) -> Void = { _ in }) {
        install { number in
            onStop(number)
            context.stop()
        }
    }

    /// Calls `onStop` with the signal's number on each SIGINT or SIGTERM,
    /// on a Dispatch thread; the process goes on until `onStop` ends it.
    static func install(onStop: @escaping @Sendable (Int32) -> Void) {
        signal(SIGPIPE, SIG_IGN)
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { onStop(number) }
            source.resume()
            sources.append(source)
        }
    }
}
