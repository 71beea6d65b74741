import Dispatch
import Foundation

/// A point in monotonic time after which a test stops waiting and fails.
///
/// Every polling loop in the tests waits through a `Deadline`, so a
/// regression that stops the awaited condition from ever holding fails the
/// test within `timeout` instead of hanging CI. The clock is
/// `ContinuousClock`: monotonic, never today's date.
public struct Deadline: Sendable {
    /// What the waiter waits for, for the failure message.
    public let what: String
    public let timeout: Duration
    private let end: ContinuousClock.Instant

    /// The default is generous on purpose: a loaded two-core CI machine must
    /// never trip it, a hang must still fail long before CI's own limit.
    public init(_ what: String, timeout: Duration = .seconds(60)) {
        self.what = what
        self.timeout = timeout
        end = ContinuousClock.now.advanced(by: timeout)
    }

    public var hasPassed: Bool { ContinuousClock.now >= end }

    /// Throws `DeadlineExceeded` once the deadline has passed.
    public func check() throws(DeadlineExceeded) {
        if hasPassed { throw DeadlineExceeded(what: what, timeout: timeout) }
    }

    /// Polls `condition` every `interval` from a task until it holds.
    /// Throws `DeadlineExceeded` when it still does not hold at the deadline.
    ///
    /// Between polls the task suspends while a Dispatch thread sleeps
    /// (`nanosleep`), not on `Task.sleep`: under libfaketime (the year-ahead
    /// run of `Scripts/test`) Dispatch's timers never fire, and every test
    /// that waited on one hung the run.
    public static func wait(
        until what: String, timeout: Duration = .seconds(60), every interval: Duration = .milliseconds(1),
        _ condition: () throws -> Bool
    ) async throws {
        let deadline = Deadline(what, timeout: timeout)
        while try !condition() {
            try deadline.check()
            await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    Thread.sleep(forTimeInterval: seconds(interval))
                    continuation.resume()
                }
            }
        }
    }

    /// Polls `condition` every `interval` from a thread that may block until
    /// it holds. Throws `DeadlineExceeded` when it still does not hold at the
    /// deadline.
    public static func block(
        until what: String, timeout: Duration = .seconds(60), every interval: Duration = .milliseconds(1),
        _ condition: () throws -> Bool
    ) throws {
        let deadline = Deadline(what, timeout: timeout)
        while try !condition() {
            try deadline.check()
            Thread.sleep(forTimeInterval: seconds(interval))
        }
    }
}

/// `duration` in seconds, for `Thread.sleep`.
private func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// A test waited longer than its deadline for something that never happened.
public struct DeadlineExceeded: Error, CustomStringConvertible {
    public let what: String
    public let timeout: Duration
    public var description: String { "gave up after \(timeout) waiting until \(what)" }
}
