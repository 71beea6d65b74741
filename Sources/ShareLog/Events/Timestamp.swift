import Foundation

/// A point in time in whole milliseconds since 1970-01-01T00:00:00Z, the
/// resolution ShareLog stores.
public struct Timestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let milliseconds: Int64

    public init(milliseconds: Int64) { self.milliseconds = milliseconds }

    /// Rounds `date` to the nearest millisecond (a `Date` is a `Double` of
    /// seconds, so 0.761 s arrives as 0.76099…).
    public init(_ date: Date) {
        milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    public var date: Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }

    /// `self` moved by `duration`, to the millisecond: a part of a
    /// millisecond is dropped toward zero. A result past either end of the
    /// range stays at that end instead of trapping, because times arrive
    /// from other replicas' clocks.
    public func advanced(by duration: Duration) -> Timestamp {
        let (seconds, attoseconds) = duration.components
        let exact = Int128(milliseconds) + Int128(seconds) * 1000 + Int128(attoseconds / 1_000_000_000_000_000)
        return Timestamp(milliseconds: Int64(clamping: exact))
    }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool { lhs.milliseconds < rhs.milliseconds }

    /// ISO 8601 in UTC with milliseconds, e.g. `2026-11-29T12:00:00.000Z`.
    public var iso8601: String {
        // The formatter truncates to the millisecond; half a millisecond
        // more keeps 0.99899… s (how 999 ms arrives as a Double) at 999.
        Date(timeIntervalSince1970: (Double(milliseconds) + 0.5) / 1000).formatted(Timestamp.withMilliseconds)
    }

    public var description: String { iso8601 }

    /// Parses ISO 8601 with or without fractional seconds.
    public init?(iso8601 text: String) {
        guard let date = (try? Date(text, strategy: Timestamp.withMilliseconds))
            ?? (try? Date(text, strategy: Timestamp.wholeSeconds))
        else { return nil }
        self.init(date)
    }

    private static let withMilliseconds = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    private static let wholeSeconds = Date.ISO8601FormatStyle()
}
