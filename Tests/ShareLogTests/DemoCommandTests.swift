import Foundation
import Testing
import TestSupport
@testable import ShareLog

/// `sharelog demo`, as docs/CLI.md describes it: on a new store it creates,
/// fetches, sweeps 8 days ahead, compacts and verifies, prints what it did,
/// and exits 0 only if all of that held. Checked afterwards with other
/// commands, each its own process.
@Suite struct DemoCommandTests {
    static let phases = ["create (durable, one each)", "fetch by id", "fetch by link and preview", "sweep 8 days ahead", "compact", "verify"]

    @Test func theDemoPrintsWhatItDidAndLeavesAStoreThatVerifies() throws {
        let dir = TemporaryDirectory()
        let cli = CLI(store: dir.appending("demo"), now: "2026-12-01T10:00:00Z")
        let demo = try cli.run("demo", "--shares", "12", "--photo-every", "5")
        #expect(demo.status == 0)
        #expect(demo.error == "")
        let lines = demo.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count == 12)
        // Each phase line: its name padded to 28 columns, the count in 7, then a time.
        for (line, (phase, count)) in zip(lines, zip(Self.phases, [12, 12, 12, 12, 12, 24])) {
            #expect(line.hasPrefix(phase.padding(toLength: 28, withPad: " ", startingAt: 0) + String(repeating: " ", count: 7 - "\(count)".count) + "\(count) in "))
            #expect(line.hasSuffix(" ms"))
        }
        #expect(Array(lines.dropFirst(6)) == [
            "",
            "12 shares (3 with photos) created, fetched by id and by link",
            "sweep at 2026-12-09T10:00:00.000Z: 12 expired; compaction redacted 12 log entries",
            "verify: projections match the log",
            "store: \(cli.store)",
            "",
        ])

        let verify = try cli.run("verify", "--json")
        #expect(verify.status == 0)
        #expect(verify.json["consistent"] as? Bool == true)
        #expect(verify.json["events"] as? Int == 24)
        let stats = try cli.run("stats", "--json", "--now", "2026-12-09T10:00:00Z").json
        #expect(stats["events"] as? Int == 24)
        #expect(stats["live"] as? Int == 0)
        #expect(stats["expired"] as? Int == 12)
        #expect(stats["due"] as? Int == 0)
        #expect(stats["pendingRedactions"] as? Int == 0)
        let log = CLI.jsonLines(try cli.run("log", "--json").output)
        #expect(log.count == 24)
        let created = log.prefix(12), ended = log.suffix(12)
        #expect(created.allSatisfy { $0["kind"] as? String == "shareCreated" && $0["redacted"] as? Bool == true })
        #expect(created.allSatisfy { $0["createdAt"] as? String == "2026-12-01T10:00:00.000Z" })
        #expect(created.allSatisfy { $0["expiresAt"] as? String == "2026-12-08T10:00:00.000Z" })
        #expect(ended.allSatisfy { $0["kind"] as? String == "shareExpired" && $0["reason"] as? String == "ttl" })
        #expect(ended.allSatisfy { $0["at"] as? String == "2026-12-08T10:00:00.000Z" })
        #expect(Set(created.compactMap { $0["id"] as? String }) == Set(ended.compactMap { $0["id"] as? String }))
        #expect(Set(created.compactMap { $0["id"] as? String }).count == 12)
    }

    @Test func theDemoSummaryInJSONCountsEveryPhase() throws {
        let dir = TemporaryDirectory()
        let cli = CLI(store: dir.appending("demo"), now: "2026-12-01T10:00:00Z")
        let demo = try cli.run("demo", "--shares", "7", "--photo-every", "3", "--json")
        #expect(demo.status == 0)
        let summary = demo.json
        #expect(summary["store"] as? String == cli.store)
        #expect(summary["shares"] as? Int == 7)
        #expect(summary["withPhotos"] as? Int == 3)
        #expect(summary["expired"] as? Int == 7)
        #expect(summary["redacted"] as? Int == 7)
        #expect(summary["verified"] as? Bool == true)
        let phases = try #require(summary["phases"] as? [[String: Any]])
        #expect(phases.map { $0["name"] as? String } == Self.phases)
        #expect(phases.map { $0["count"] as? Int } == [7, 7, 7, 7, 7, 14])
        #expect(try cli.run("verify").status == 0)
    }

    @Test func theDemoRefusesAStoreThatExistsAndLeavesItAlone() throws {
        let dir = TemporaryDirectory()
        let cli = CLI(store: dir.appending("store"), now: "2026-12-01T10:00:00Z")
        _ = try cli.run("init")
        #expect(try cli.run("share", "create", "-", input: Data(smallCard())).status == 0)
        let before = try cli.dataFile()
        let demo = try cli.run("demo", "--shares", "3")
        #expect(demo.status == 5)
        #expect(demo.error == "sharelog: demo needs a new store, but \(cli.store) exists; pass another --store\n")
        #expect(demo.output == "")
        #expect(try cli.dataFile() == before)
    }
}
