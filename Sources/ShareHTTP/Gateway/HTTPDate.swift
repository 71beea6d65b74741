import ShareLog

/// HTTP's date format, IMF-fixdate (RFC 9110 §5.6.7):
/// `Sun, 06 Nov 1994 08:49:37 GMT`. Computed from the days since the
/// epoch, with no formatter and no locale; cost O(1).
public enum HTTPDate {
    private static let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `time`, rounded down to the second, as an IMF-fixdate.
    public static func format(_ time: Timestamp) -> String {
        let p = Parts(time)
        return "\(weekdays[p.weekday]), \(two(p.day)) \(months[p.month - 1]) \(four(p.year)) \(two(p.hour)):\(two(p.minute)):\(two(p.second)) GMT"
    }

    /// `time` for people: `9 Dec 2026, 10:00 UTC`.
    public static func readable(_ time: Timestamp) -> String {
        let p = Parts(time)
        return "\(p.day) \(months[p.month - 1]) \(p.year), \(two(p.hour)):\(two(p.minute)) UTC"
    }

    /// The calendar fields of a time in UTC.
    private struct Parts {
        let year: Int64, month: Int, day: Int, weekday: Int, hour: Int64, minute: Int64, second: Int64

        init(_ time: Timestamp) {
            let seconds = time.milliseconds >= 0 ? time.milliseconds / 1000 : (time.milliseconds - 999) / 1000
            let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
            let secondOfDay = seconds - days * 86_400
            let date = ISO8601Text.civil(fromDays: days)
            (year, month, day) = (date.year, Int(date.month), Int(date.day))
            weekday = Int(((days % 7) + 7) % 7)
            hour = secondOfDay / 3600
            minute = secondOfDay / 60 % 60
            second = secondOfDay % 60
        }
    }

    /// IMF-fixdate's year is four digits: years before 1000 are zero-padded.
    private static func four(_ value: Int64) -> String {
        value >= 0 && value < 1000 ? String(repeating: "0", count: 4 - String(value).count) + String(value) : String(value)
    }

    private static func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
    private static func two(_ value: Int) -> String { two(Int64(value)) }
}
