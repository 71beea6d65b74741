import ShareHTTP
import ShareLog
import Testing

/// HTTP dates as RFC 9110 writes them (IMF-fixdate), and the readable form
/// the pages use, from timestamps whose calendar dates were looked up with
/// `date -u`, not computed by the code under test.
@Suite struct HTTPDateTests {
    @Test(arguments: [
        (0, "Thu, 01 Jan 1970 00:00:00 GMT"),
        (784_111_777_000, "Sun, 06 Nov 1994 08:49:37 GMT"),
        (1_800_000_000_000, "Fri, 15 Jan 2027 08:00:00 GMT"),
        (1_800_000_000_999, "Fri, 15 Jan 2027 08:00:00 GMT"),
        (1_800_000_001_000, "Fri, 15 Jan 2027 08:00:01 GMT"),
        (1_830_297_599_000, "Fri, 31 Dec 2027 23:59:59 GMT"),
        (1_830_297_600_000, "Sat, 01 Jan 2028 00:00:00 GMT"),
        (1_835_440_496_000, "Tue, 29 Feb 2028 12:34:56 GMT"),
        (951_868_799_000, "Tue, 29 Feb 2000 23:59:59 GMT"),
        (4_107_542_400_000, "Mon, 01 Mar 2100 00:00:00 GMT"),
        (253_402_300_799_000, "Fri, 31 Dec 9999 23:59:59 GMT"),
        (-1, "Wed, 31 Dec 1969 23:59:59 GMT"),
        (-1_000, "Wed, 31 Dec 1969 23:59:59 GMT"),
        (-86_400_000, "Wed, 31 Dec 1969 00:00:00 GMT"),
    ] as [(Int64, String)])
    func formatsIMFFixdate(milliseconds: Int64, expected: String) {
        #expect(HTTPDate.format(Timestamp(milliseconds: milliseconds)) == expected)
    }

    @Test(arguments: [
        (1_800_000_000_000, "15 Jan 2027, 08:00 UTC"),
        (1_796_810_400_000, "9 Dec 2026, 10:00 UTC"),
        (1_799_996_460_000, "15 Jan 2027, 07:01 UTC"),
        (1_830_297_599_999, "31 Dec 2027, 23:59 UTC"),
        (1_830_297_600_000, "1 Jan 2028, 00:00 UTC"),
    ] as [(Int64, String)])
    func formatsReadableDates(milliseconds: Int64, expected: String) {
        #expect(HTTPDate.readable(Timestamp(milliseconds: milliseconds)) == expected)
    }

    /// Every day of 2026 to 2029 (2028 a leap year) has the
    /// weekday after the one before, and the dates run without gap.
    @Test func consecutiveDaysHaveConsecutiveWeekdays() {
        let weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
        let startDay: Int64 = 20_454 // Thu, 01 Jan 2026
        var previous = HTTPDate.format(Timestamp(milliseconds: startDay * 86_400_000))
        #expect(previous == "Thu, 01 Jan 2026 00:00:00 GMT")
        for day in (startDay + 1)...(startDay + 1460) {
            let text = HTTPDate.format(Timestamp(milliseconds: day * 86_400_000 + 43_200_000))
            let expectedWeekday = weekdays[(weekdays.firstIndex(of: String(previous.prefix(3)))! + 1) % 7]
            #expect(text.hasPrefix(expectedWeekday + ", "), "\(text) after \(previous)")
            #expect(text.hasSuffix(" 12:00:00 GMT"))
            previous = text
        }
        #expect(previous == "Mon, 31 Dec 2029 12:00:00 GMT")
    }
}
