import Foundation
import ShareLog
import SharePrimitives

/// The demo's clock: it starts at the demo's "now" and moves forward only
/// when the demo moves it (8 days, for the expiry), so the run is the same
/// whatever today's date. The main app reads it here; the main server reads
/// it from `file` (`--now-file`), which every move rewrites, so the
/// server's maintenance sees the same time.
final class DemoClock: WallClock {
    private let time: Locked<Timestamp>
    /// The file the server reads the time from.
    let file: String

    /// Starts at `start`, written to `file`.
    init(_ start: Timestamp, file: String) throws {
        time = Locked(start)
        self.file = file
        try write(start)
    }

    func now() -> Timestamp { time.withLock { $0 } }

    /// Moves the clock forward by `duration`, here and in the file.
    func advance(by duration: Duration) throws {
        try write(time.withLock { time in
            time = time.advanced(by: duration)
            return time
        })
    }

    /// Replaces the file whole (a new file renamed over it), so a reader
    /// never sees half a time.
    private func write(_ time: Timestamp) throws {
        do {
            try Data(time.iso8601.utf8).write(to: URL(fileURLWithPath: file), options: .atomic)
        } catch {
            throw CLIError.failure("cannot write the demo's clock to \(file): \(error)")
        }
    }
}
