import Testing
@testable import ShareLog

@Suite struct TimestampTests {
    @Test(arguments: [0, 1, 999, 1_800_000_000_123, 1_764_419_947_761, 1_764_419_947_001, 4_102_444_799_999] as [Int64])
    func iso8601TextRoundTripsToTheMillisecond(milliseconds: Int64) throws {
        let time = Timestamp(milliseconds: milliseconds)
        let text = time.iso8601
        #expect(text.hasSuffix("Z") && text.count == 24)
        #expect(Timestamp(iso8601: text) == time)
    }

    @Test func wholeSecondsAndFractionsAreBothAccepted() {
        #expect(Timestamp(iso8601: "2026-12-07T09:30:00Z")?.milliseconds == 1_796_635_800_000)
        #expect(Timestamp(iso8601: "2026-12-07T09:30:00.250Z")?.milliseconds == 1_796_635_800_250)
        #expect(Timestamp(iso8601: "yesterday") == nil)
    }
}
