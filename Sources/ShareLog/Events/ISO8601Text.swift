/// ISO 8601 text for a `Timestamp`, in the proleptic Gregorian calendar, for
/// every millisecond an `Int64` holds.
///
/// Foundation's formatter switches to the Julian calendar before 1582-10-15
/// and stops at year 506713, so times from another replica's clock printed
/// wrong dates. This one is exact over the whole range (the civil-date
/// conversion is Howard Hinnant's `days_from_civil`), and what it prints
/// parses back to the same millisecond.
///
/// Text form: `YYYY-MM-DDTHH:MM:SS.mmmZ`; a year outside 0000...9999 takes a
/// sign and at least six digits (ISO 8601's expanded years, as JavaScript
/// prints them), e.g. `-000001-12-31T00:00:00.000Z`.
package enum ISO8601Text {
    private static let millisecondsPerDay: Int64 = 86_400_000

    static func format(_ milliseconds: Int64) -> String {
        let (days, dayMilliseconds) = floorDivision(milliseconds, millisecondsPerDay)
        let (year, month, day) = civil(fromDays: days)
        let yearText: String
        if (0...9999).contains(year) {
            yearText = padded(year, 4)
        } else {
            yearText = (year < 0 ? "-" : "+") + padded(year.magnitude, 6)
        }
        let seconds = dayMilliseconds / 1000
        return "\(yearText)-\(padded(month, 2))-\(padded(day, 2))T\(padded(seconds / 3600, 2)):"
            + "\(padded(seconds / 60 % 60, 2)):\(padded(seconds % 60, 2)).\(padded(dayMilliseconds % 1000, 3))Z"
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM|±HHMM)`, where a year
    /// outside 0000...9999 takes a sign (`±YYYYYY`, four digits or more; a
    /// five-digit year without a sign is a typo, not year 20266). Digits of
    /// the fraction past the millisecond are dropped. Nil for anything
    /// else, for an impossible date or time, or for an instant outside the
    /// `Int64` range of milliseconds.
    static func parse(_ text: String) -> Int64? {
        var scanner = Scanner(Array(text.utf8))
        let negative = scanner.take("-")
        let signed = negative || scanner.take("+")
        guard let yearDigits = scanner.digits(atLeast: 4, atMost: signed ? 12 : 4),
              !(negative && yearDigits == 0),
              scanner.take("-"), let month = scanner.digits(exactly: 2), (1...12).contains(month),
              scanner.take("-"), let day = scanner.digits(exactly: 2),
              scanner.take("T"), let hour = scanner.digits(exactly: 2), hour < 24,
              scanner.take(":"), let minute = scanner.digits(exactly: 2), minute < 60,
              scanner.take(":"), let second = scanner.digits(exactly: 2), second < 60
        else { return nil }
        let year = negative ? -yearDigits : yearDigits
        guard (1...daysIn(month: month, of: year)).contains(day) else { return nil }
        var millisecond: Int64 = 0
        if scanner.take(".") {
            guard let fraction = scanner.fractionDigits() else { return nil }
            millisecond = fraction
        }
        let offsetMinutes: Int64
        if scanner.take("Z") {
            offsetMinutes = 0
        } else {
            let sign: Int64 = scanner.take("+") ? 1 : scanner.take("-") ? -1 : 0
            guard sign != 0, let hours = scanner.digits(exactly: 2, followedByDigit: true), hours < 24 else { return nil }
            _ = scanner.take(":")
            guard let minutes = scanner.digits(exactly: 2), minutes < 60 else { return nil }
            offsetMinutes = sign * (hours * 60 + minutes)
        }
        guard scanner.isAtEnd else { return nil }
        let days = Int128(days(fromYear: year, month: month, day: day))
        let exact = days * Int128(millisecondsPerDay)
            + Int128(((hour * 60 + minute) * 60 + second) * 1000 + millisecond)
            - Int128(offsetMinutes) * 60_000
        return Int64(exactly: exact)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date.
    static func days(fromYear year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date `days` after 1970-01-01 (Howard
    /// Hinnant's algorithm). `package`: the HTTP gateway's dates use it too.
    package static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func daysIn(month: Int64, of year: Int64) -> Int64 {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let remainder = value % divisor
        return remainder < 0 ? (value / divisor - 1, remainder + divisor) : (value / divisor, remainder)
    }

    private static func padded(_ value: some BinaryInteger, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// Reads ASCII text left to right.
    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var isAtEnd: Bool { index == bytes.count }

        /// Consumes `character` if it is next.
        mutating func take(_ character: Unicode.Scalar) -> Bool {
            guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
            index += 1
            return true
        }

        /// Exactly `count` digits; unless `followedByDigit`, not followed by
        /// another (`+0530` reads its hours with more digits after them).
        mutating func digits(exactly count: Int, followedByDigit: Bool = false) -> Int64? {
            digits(atLeast: count, atMost: count, followedByDigit: followedByDigit)
        }

        /// A run of `atLeast...atMost` decimal digits, and unless
        /// `followedByDigit`, not followed by another.
        mutating func digits(atLeast minimum: Int, atMost maximum: Int, followedByDigit: Bool = false) -> Int64? {
            let start = index
            var value: Int64 = 0
            while index < bytes.count, index - start < maximum, let digit = Self.digit(bytes[index]) {
                value = value * 10 + digit
                index += 1
            }
            let count = index - start
            guard count >= minimum, followedByDigit || index == bytes.count || Self.digit(bytes[index]) == nil else { return nil }
            return value
        }

        /// One or more digits of a fraction of a second, as whole milliseconds.
        mutating func fractionDigits() -> Int64? {
            var milliseconds: Int64 = 0
            var count = 0
            while index < bytes.count, let digit = Self.digit(bytes[index]) {
                if count < 3 { milliseconds = milliseconds * 10 + digit }
                count += 1
                index += 1
            }
            guard count > 0 else { return nil }
            for _ in count..<max(count, 3) { milliseconds *= 10 }
            return milliseconds
        }

        private static func digit(_ byte: UInt8) -> Int64? {
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? Int64(byte - UInt8(ascii: "0")) : nil
        }
    }
}
