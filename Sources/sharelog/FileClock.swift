import Foundation
import ShareLog

/// The clock of `--now-file FILE`: the ISO 8601 time the file holds, read
/// each time the clock is asked. A test hook: a long-running command
/// (`serve`, `maintain`) then sees the time a test sets, by renaming a new
/// file over the old one. A read that finds no time (the file gone, or
/// being written in place) gives the time read at start.
struct FileClock: WallClock {
    let path: String
    private let first: Timestamp

    /// Reads `path` once, so that a wrong file fails the command at start.
    init(path: String) throws {
        guard let first = Self.read(path) else {
            throw CLIError.invalidInput("--now-file '\(path)' does not hold an ISO 8601 time such as 2026-12-07T09:30:00Z")
        }
        self.path = path
        self.first = first
    }

    func now() -> Timestamp { Self.read(path) ?? first }

    private static func read(_ path: String) -> Timestamp? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return Timestamp(iso8601: String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
