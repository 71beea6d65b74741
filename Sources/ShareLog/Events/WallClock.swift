import Foundation

/// Where ShareLog gets the current time; injected so that tests and the
/// CLI's `--now` can travel in time.
public protocol WallClock: Sendable {
    func now() -> Timestamp
}
