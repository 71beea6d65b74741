import Foundation
import Testing
import TestSupport
import TestTraits
@testable import ShareLog

/// Times on the command line: every time the CLI prints is UTC whatever the
/// user's `TZ`, and `--now` with a UTC offset is that instant.
@Suite(.ownThread) struct CLITimeTests {
    static let card = Data("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Jane Appleseed\r\nEND:VCARD\r\n".utf8)

    /// The UTC offset date(1) reports in zone `zone` at 2026-12-01T10:00Z:
    /// proof that the zone exists on this machine and applies to a child.
    static func offset(in zone: String) throws -> String {
        let outcome = try Subprocess.run("/usr/bin/date", ["-d", "@1796119200", "+%z"], environment: ["TZ": zone])
        return String(decoding: outcome.output, as: UTF8.self)
    }

    @Test(arguments: [("Asia/Tokyo", "+0900"), ("America/St_Johns", "-0330"), ("Pacific/Kiritimati", "+1400")])
    func aLocalTimeZoneChangesNoTimeTheCLIReadsOrPrints(zone: String, offset: String) throws {
        try #require(try Self.offset(in: zone) == offset + "\n", "the zone \(zone) is not installed or not applied")
        let dir = TemporaryDirectory()
        let cli = CLI(store: dir.appending("store"), now: "2026-12-01T10:00:00Z")
        let zoned = ["TZ": zone]
        #expect(try cli.run(environment: zoned, "init").status == 0)
        let created = try cli.run(environment: zoned, "share", "create", "-", "--ttl", "1d", "--json", input: Self.card)
        #expect(created.json["createdAt"] as? String == "2026-12-01T10:00:00.000Z")
        #expect(created.json["expiresAt"] as? String == "2026-12-02T10:00:00.000Z")
        let id = try #require(created.json["id"] as? String)
        let shown = try cli.run(environment: zoned, "share", "get", id)
        #expect(shown.output.contains("\nexpires:  2026-12-02T10:00:00.000Z\n"))
        #expect(try cli.run(environment: zoned, "share", "get", id, "--now", "2026-12-02T09:59:59.999Z").status == 0)
        let due = try cli.run(environment: zoned, "share", "get", id, "--json", "--now", "2026-12-02T10:00:00Z")
        #expect(due.status == 4)
        #expect(due.json["expiredAt"] as? String == "2026-12-02T10:00:00.000Z")
        let swept = try cli.run(environment: zoned, "sweep", "--json", "--now", "2026-12-02T10:00:00Z")
        #expect(swept.output == #"{"batches":1,"expired":1,"keysVisited":1,"now":"2026-12-02T10:00:00.000Z"}"# + "\n")
        let log = CLI.jsonLines(try cli.run(environment: zoned, "log", "--json").output)
        #expect(log.map { $0["createdAt"] as? String ?? $0["at"] as? String } == ["2026-12-01T10:00:00.000Z", "2026-12-02T10:00:00.000Z"])
        // A time without an offset is refused rather than read as local time.
        let local = try cli.run(environment: zoned, "stats", "--now", "2026-12-01T10:00:00")
        #expect(local.status == 5)
        #expect(local.error == "sharelog: --now '2026-12-01T10:00:00' is not an ISO 8601 time such as 2026-12-07T09:30:00Z\n")
    }

    @Test(arguments: [
        ("2026-12-01T12:00:00+02:00", "2026-12-01T10:00:00.000Z", "2026-12-01T11:00:00.000Z"),
        ("2026-12-01T12:00:00.250+02:00", "2026-12-01T10:00:00.250Z", "2026-12-01T11:00:00.250Z"),
        ("2026-12-01T04:30:00-05:30", "2026-12-01T10:00:00.000Z", "2026-12-01T11:00:00.000Z"),
        ("2026-12-02T00:00:00+14:00", "2026-12-01T10:00:00.000Z", "2026-12-01T11:00:00.000Z"),
        ("2026-12-01T10:00:00+00:00", "2026-12-01T10:00:00.000Z", "2026-12-01T11:00:00.000Z"),
    ])
    func nowWithAUTCOffsetIsThatInstant(now: String, createdAt: String, expiresAt: String) throws {
        let dir = TemporaryDirectory()
        let cli = CLI(store: dir.appending("store"))
        _ = try cli.run("init")
        let created = try cli.run("share", "create", "-", "--ttl", "1h", "--json", "--now", now, input: Self.card)
        #expect(created.status == 0)
        #expect(created.json["createdAt"] as? String == createdAt)
        #expect(created.json["expiresAt"] as? String == expiresAt)
    }

    /// Expiry checks compare instants: 12:59:59.999+02:00 is before an
    /// expiry at 11:00Z, 13:00+02:00 is that expiry.
    @Test func expiryChecksWithAnOffsetCompareTheInstant() throws {
        let dir = TemporaryDirectory()
        let cli = CLI(store: dir.appending("store"), now: "2026-12-01T10:00:00Z")
        _ = try cli.run("init")
        let id = try #require(try cli.run("share", "create", "-", "--ttl", "1h", "--json", input: Self.card).json["id"] as? String)
        #expect(try cli.run("share", "get", id, "--now", "2026-12-01T12:59:59.999+02:00").status == 0)
        #expect(try cli.run("sweep", "--json", "--now", "2026-12-01T12:59:59.999+02:00").json["expired"] as? Int == 0)
        let due = try cli.run("share", "get", id, "--json", "--now", "2026-12-01T13:00:00+02:00")
        #expect(due.status == 4)
        #expect(due.json["expiredAt"] as? String == "2026-12-01T11:00:00.000Z")
        let swept = try cli.run("sweep", "--json", "--now", "2026-12-01T13:00:00+02:00")
        #expect(swept.output == #"{"batches":1,"expired":1,"keysVisited":1,"now":"2026-12-01T11:00:00.000Z"}"# + "\n")
    }
}
