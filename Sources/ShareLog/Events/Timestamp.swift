import Foundation

/// A point in time in whole milliseconds since 1970-01-01T00:00:00Z, the
/// resolution ShareLog stores.
public struct Timestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let milliseconds: Int64

    public init(milliseconds: Int64) { self.milliseconds = milliseconds }

    /// Rounds `date` down to the millisecond.
    public init(_ date: Date) {
        milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    public var date: Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }

    /// `self` moved by `duration`.
    public func advanced(by duration: Duration) -> Timestamp {
        let (seconds, attoseconds) = duration.components
        return Timestamp(milliseconds: milliseconds + seconds * 1000 + attoseconds / 1_000_000_000_000_000)
    }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool { lhs.milliseconds < rhs.milliseconds }

    /// ISO 8601 in UTC with milliseconds, e.g. `2026-11-29T12:00:00.000Z`.
    public var iso8601: String { Timestamp.formatter.string(from: date) }

    public var description: String { iso8601 }

    /// Parses ISO 8601 with or without fractional seconds.
    public init?(iso8601 text: String) {
        guard let date = Timestamp.formatter.date(from: text) ?? Timestamp.wholeSeconds.date(from: text) else {
            return nil
        }
        self.init(date)
    }

    nonisolated(unsafe) private static let formatter: ISO8601DateFormatter = {
        // nonisolated(unsafe): ISO8601DateFormatter is thread-safe for
        // formatting and parsing once configured, and it is never mutated
        // after this initialiser.
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }()

    nonisolated(unsafe) private static let wholeSeconds: ISO8601DateFormatter = {
        // nonisolated(unsafe): as above, configured once and then only read.
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter
    }()
}
