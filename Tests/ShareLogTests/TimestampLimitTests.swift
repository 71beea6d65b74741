import Foundation
import Testing
@testable import ShareLog

/// `Timestamp` at the ends of its range. Times come from other replicas,
/// so any Int64 may arrive; none may trap the store or be stored wrong.
/// Expected millisecond values were computed with Python's `datetime`.
@Suite struct TimestampLimitTests {
    static let max = Timestamp(milliseconds: 9_223_372_036_854_775_807)
    static let min = Timestamp(milliseconds: -9_223_372_036_854_775_808)

    @Test(arguments: [
        (9_223_372_036_854_774_807, Duration.seconds(1), 9_223_372_036_854_775_807),
        (9_223_372_036_854_775_807, .milliseconds(-1), 9_223_372_036_854_775_806),
        (9_223_372_036_854_775_807, .microseconds(999), 9_223_372_036_854_775_807),
        (-9_223_372_036_854_774_808, .seconds(-1), -9_223_372_036_854_775_808),
        (-9_223_372_036_854_775_808, .milliseconds(1), -9_223_372_036_854_775_807),
        // A whole range's worth in one step, from one end almost to the other.
        (-9_223_372_036_854_775_808, .seconds(9_223_372_036_854_775), -808),
        (9_223_372_036_854_775_807, .seconds(-9_223_372_036_854_775), 807),
        // Parts of a millisecond are dropped toward zero.
        (0, .microseconds(1500), 1),
        (0, .microseconds(-1500), -1),
    ] as [(Int64, Duration, Int64)])
    func advancingNearTheLimitsIsExactToTheMillisecond(from: Int64, by: Duration, to: Int64) {
        #expect(Timestamp(milliseconds: from).advanced(by: by) == Timestamp(milliseconds: to))
    }

    /// Past either end the result stays at that end instead of trapping.
    @Test(arguments: [
        (9_223_372_036_854_775_807, Duration.seconds(1), 9_223_372_036_854_775_807),
        (9_223_372_036_854_775_000, .seconds(1), 9_223_372_036_854_775_807),
        (-9_223_372_036_854_775_808, .seconds(-1), -9_223_372_036_854_775_808),
        (0, .seconds(Int64.max), 9_223_372_036_854_775_807),
        (0, .seconds(Int64.min), -9_223_372_036_854_775_808),
        (-9_223_372_036_854_775_808, .seconds(Int64.max), 9_223_372_036_854_775_807),
    ] as [(Int64, Duration, Int64)])
    func advancingPastALimitStaysAtTheLimit(from: Int64, by: Duration, to: Int64) {
        #expect(Timestamp(milliseconds: from).advanced(by: by) == Timestamp(milliseconds: to))
    }

    @Test(arguments: [
        (0, "1970-01-01T00:00:00.000Z"),
        (-1, "1969-12-31T23:59:59.999Z"),
        (1_796_119_200_000, "2026-12-01T10:00:00.000Z"),
        // The first day of the Gregorian calendar, and the last of four-digit years.
        (-12_219_292_800_000, "1582-10-15T00:00:00.000Z"),
        (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
        // Before 1582 the calendar stays Gregorian, and years beyond four
        // digits take a sign (expected values from GNU `date -u -d @S`).
        (-62_135_596_800_000, "0001-01-01T00:00:00.000Z"),
        (-62_167_219_200_000, "0000-01-01T00:00:00.000Z"),
        (-62_167_219_200_001, "-000001-12-31T23:59:59.999Z"),
        (253_402_300_800_000, "+010000-01-01T00:00:00.000Z"),
        (9_223_372_036_854_775_807, "+292278994-08-17T07:12:55.807Z"),
        (-9_223_372_036_854_775_808, "-292275055-05-16T16:47:04.192Z"),
    ] as [(Int64, String)])
    func iso8601IsExactAtTheEdgesOfFourDigitGregorianYears(milliseconds: Int64, text: String) {
        #expect(Timestamp(milliseconds: milliseconds).iso8601 == text)
        #expect(Timestamp(iso8601: text) == Timestamp(milliseconds: milliseconds))
    }

    /// Offsets in either ISO form, `±HH:MM` and `±HHMM` (as `date +%z`
    /// prints them), name the same instant.
    @Test(arguments: [
        "2026-12-01T15:30:00+05:30", "2026-12-01T15:30:00+0530", "2026-12-01T05:00:00-0500", "2026-12-01T10:00:00+0000",
        "+2026-12-01T10:00:00Z", "+002026-12-01T10:00:00.000Z",
    ])
    func offsetsInEitherFormNameTheSameInstant(text: String) {
        #expect(Timestamp(iso8601: text) == Timestamp(milliseconds: 1_796_119_200_000))
    }

    /// Times beyond what Int64 milliseconds hold, one millisecond past either
    /// end or far beyond, and impossible dates are refused as text, never
    /// trapped on or wrapped around.
    @Test(arguments: [
        "+292278994-08-17T07:12:55.808Z", "292278995-01-01T00:00:00Z", "-292275055-05-16T16:47:04.191Z",
        "1000000000-01-01T00:00:00Z", "99999999999999999999-01-01T00:00:00Z",
        "-99999999999999999999-01-01T00:00:00Z", "2026-02-29T00:00:00Z", "2026-13-01T00:00:00Z",
        "2026-12-01T24:00:00Z", "2026-12-01T10:00:00", "2026-12-01T10:00:00+2:00", "2026-12-01 10:00:00Z",
        "20266-12-01T10:00:00Z", "-0000-01-01T00:00:00Z", "2026-12-01T10:00:00+053", "2026-12-01T10:00:00+05300",
    ])
    func yearsOutsideTheRangeAreRefused(text: String) {
        #expect(Timestamp(iso8601: text) == nil)
    }

    /// A share that lives until the last millisecond there is is stored
    /// and answered exactly: live until then, due only at it. (A peer's
    /// share spanning the whole range is refused: no share lives past 30 days.)
    @Test func aShareEndingAtTheLastMillisecondIsKeptExactly() throws {
        let test = try TestStore()
        let name = RecordName.random()
        let week: Int64 = 7 * 24 * 3600 * 1000
        let createdAt = Timestamp(milliseconds: Self.max.milliseconds - week)
        let replica = ForeignReplica()
        let whole = replica.event(.shareCreated(ShareCreated(recordName: .random(), vCard: smallCard(), createdAt: Self.min, expiresAt: Self.max)))
        #expect(throws: ShareLogError.self) { try test.store.apply([whole]) }
        let creation = replica.event(.shareCreated(ShareCreated(recordName: name, vCard: smallCard(), createdAt: createdAt, expiresAt: Self.max)))
        try test.store.apply([creation])
        let share = Share(recordName: name, vCard: smallCard(), createdAt: createdAt, expiresAt: Self.max)
        #expect(try test.store.events(after: 0).map(\.event) == [creation])
        #expect(try test.store.fetch(name, at: Timestamp(milliseconds: 9_223_372_036_854_775_806)) == .live(share))
        #expect(try test.store.fetch(name, at: Self.max) == .expired(at: Self.max, reason: .ttl))
        #expect(try test.store.stats(at: Timestamp(milliseconds: 9_223_372_036_854_775_806)).due == 0)
        #expect(try test.store.sweep(at: Timestamp(milliseconds: 9_223_372_036_854_775_806)).expired == 0)
        #expect(try test.store.sweep(at: Self.max).expired == 1)
        #expect(try test.store.events(after: 1).map(\.event.kind) == [.shareExpired(ShareExpired(recordName: name, at: Self.max, reason: .ttl))])
        #expect(try test.store.fetch(name) == .expired(at: Self.max, reason: .ttl))
        #expect(try test.store.verify().isConsistent)
    }
}
