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

    /// ISO 8601 in UTC with milliseconds, e.g. `2026-11-29T12:00:00.000Z`,
    /// in the proleptic Gregorian calendar for every value (`ISO8601Text`).
    public var iso8601: String { ISO8601Text.format(milliseconds) }

    public var description: String { iso8601 }

    /// Parses ISO 8601 with or without fractional seconds, with `Z` or an
    /// offset such as `+02:00`; digits past the millisecond are dropped.
    /// Nil for anything else, or for a time outside the range.
    public init?(iso8601 text: String) {
        guard let milliseconds = ISO8601Text.parse(text) else { return nil }
        self.init(milliseconds: milliseconds)
    }
}
