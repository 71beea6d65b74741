import Foundation
import Testing
import TestSupport

extension SyncIntegrationTests {
    /// Two main stores with 10,000 events made on each side, one served,
    /// the other syncing `--both`: afterwards both hold the same 20,000
    /// events, every share reads the same on both, `verify` passes, every
    /// derived database is equal but for log positions, and a second sync
    /// moves nothing.
    @Test func twoMainStoresSyncedBothWaysConverge() throws {
        let directory = TemporaryDirectory("both")
        let sides = [try ConvergenceSide("Alpha", at: directory.appending("alpha")), try ConvergenceSide("Beta", at: directory.appending("beta"))]
        let clis = sides.map { SharelogCLI(store: directory.appending($0.label.lowercased()), now: Self.now) }
        let replicas = try clis.map { try #require(try $0.run("stats", "--json").json["replicaID"] as? String) }

        // Unmaintained: the test counts the cards each side still has to compact.
        let server = try ServeProcess(clis[0], socket: directory.appending("s.sock"), extra: ["--maintenance", "off"])
        defer { _ = try? server.stop() }
        let first = try clis[1].run("sync", "--connect", server.endpoint, "--both", "--json", timeout: .seconds(120))
        #expect(first.succeeded, "\(first.error)")
        #expect(first.json["eventsApplied"] as? Int == ConvergenceSide.events)
        // A second sync brings nothing new (the TTL ends Beta sent come
        // back once: their id is the share's, not Beta's, so Alpha cannot
        // tell they came from Beta), and a third moves nothing at all.
        let second = try clis[1].run("sync", "--connect", server.endpoint, "--both", "--json")
        #expect(second.succeeded, "\(second.error)")
        #expect(second.json["eventsApplied"] as? Int == 0)
        let third = try clis[1].run("sync", "--connect", server.endpoint, "--both", "--json")
        #expect(third.succeeded, "\(third.error)")
        #expect(third.json["eventsApplied"] as? Int == 0)
        #expect(third.json["eventsReceived"] as? Int == 0)
        #expect(third.json["eventsSent"] as? Int == 0)
        #expect(try server.stop().succeeded)

        // Each side's cursor names the other, and both pass verify.
        for (index, cli) in clis.enumerated() {
            #expect(try cli.run("verify").succeeded)
            #expect(try cli.run("peers", "--json").jsonArray?.compactMap { $0["peer"] as? String } == [replicas[1 - index]])
            let stats = try cli.run("stats", "--json").json
            #expect(stats["events"] as? Int == 2 * ConvergenceSide.events)
            #expect(stats["live"] as? Int == 2 * ConvergenceSide.live.count)
            #expect(stats["expired"] as? Int == 2 * (ConvergenceSide.swept.count + ConvergenceSide.revoked.count))
            #expect(stats["due"] as? Int == 0)
        }

        // The same events on both sides, by id, with the same content.
        let logs = try clis.map { try Self.eventsByID(try $0.run("log", "--json", timeout: .seconds(120))) }
        #expect(logs[0].count == 2 * ConvergenceSide.events)
        let logDifferences = Differences(logs[0], logs[1])
        #expect(logDifferences.isEmpty, "\(logDifferences)")

        // Every share sampled reads the same on both sides, and as the test made it.
        try Self.expectSameAnswers(sides, clis)

        // The derived databases, dumped by mdb_dump, are equal but for log positions.
        try Self.expectEqualDerivedDatabases(clis.map(\.store), pendingEach: ConvergenceSide.swept.count + ConvergenceSide.revoked.count)
    }

    /// The events of a `log --json` by "origin/counter", each with what it
    /// says: kind, share, times and reason. The card's size is left out: a
    /// replica sends the creation of a share that ended without its card,
    /// while its own log keeps the card until compaction.
    static func eventsByID(_ log: CLIResult) throws -> [String: String] {
        var events: [String: String] = [:]
        for line in log.jsonLines {
            let id = "\(line["origin"] ?? "?")/\(line["originCounter"] ?? "?")"
            let content = ["kind", "id", "createdAt", "expiresAt", "at", "reason"].map { "\(line[$0] ?? "-")" }.joined(separator: " ")
            #expect(events.updateValue(content, forKey: id) == nil, "event \(id) is twice in one log")
        }
        return events
    }

    /// `share get --json` of 500 names made on each side and of every
    /// revoked one answers the same on both sides, with the status, end
    /// and reason the test gave the share; live ones give their cards.
    private static func expectSameAnswers(_ sides: [ConvergenceSide], _ clis: [SharelogCLI]) throws {
        var sample: [(side: ConvergenceSide, index: Int)] = []
        for side in sides {
            sample += stride(from: 5, to: ConvergenceSide.shares, by: 12).map { (side, $0) }
            sample += ConvergenceSide.revoked.map { (side, $0) }
        }
        let commands = sample.flatMap { entry in clis.map { (cli: $0, arguments: ["share", "get", entry.side.names[entry.index], "--json"]) } }
        let answers = try SharelogCLI.runAll(commands)
        for (number, entry) in sample.enumerated() {
            let (here, there) = (answers[2 * number], answers[2 * number + 1])
            let expected = entry.side.expected(entry.index)
            #expect(here.text == there.text, "share \(entry.side.label) \(entry.index)")
            #expect(here.json["status"] as? String == expected.status, "share \(entry.side.label) \(entry.index)")
            #expect(here.json["expiredAt"] as? String == expected.expiredAt, "share \(entry.side.label) \(entry.index)")
            #expect(here.json["reason"] as? String == expected.reason, "share \(entry.side.label) \(entry.index)")
        }
        let live = sides.flatMap { side in stride(from: ConvergenceSide.live.lowerBound, to: ConvergenceSide.live.upperBound, by: 40).map { (side, $0) } }
        let cards = try SharelogCLI.runAll(live.flatMap { entry in clis.map { (cli: $0, arguments: ["share", "get", entry.0.names[entry.1], "--vcard"]) } })
        for (number, entry) in live.enumerated() {
            #expect(cards[2 * number].output == entry.0.cards[entry.1], "card \(entry.0.label) \(entry.1)")
            #expect(cards[2 * number + 1].output == entry.0.cards[entry.1], "card \(entry.0.label) \(entry.1)")
        }
    }

    /// `shares`, `expiry`, `eventIndex` and `pendingRedactions` of two
    /// stores, as mdb_dump prints them, hold the same, but where a replica
    /// writes its own log positions: bytes 42..<50 of a share state with a
    /// creation, the first 8 bytes of an expiry value, the values of
    /// `eventIndex` and the keys of `pendingRedactions`. Each side awaits
    /// compaction of the cards it ended itself (`pendingEach`): the other
    /// side got those shares without their cards.
    private static func expectEqualDerivedDatabases(_ stores: [String], pendingEach: Int) throws {
        let shares = try stores.map { try StoreDump("shares", of: $0).maskingValueBytes(42..<50) { Self.hasCreation($0) } }
        #expect(shares[0].count == 2 * ConvergenceSide.shares)
        let shareDifferences = Differences(shares[0], shares[1])
        #expect(shareDifferences.isEmpty, "shares: \(shareDifferences)")
        let expiry = try stores.map { try StoreDump("expiry", of: $0).maskingValueBytes(0..<8) }
        #expect(expiry[0].count == 2 * ConvergenceSide.live.count)
        let expiryDifferences = Differences(expiry[0], expiry[1])
        #expect(expiryDifferences.isEmpty, "expiry: \(expiryDifferences)")
        let index = try stores.map { try StoreDump("eventIndex", of: $0).entries.mapValues { _ in "held" } }
        #expect(index[0].count == 2 * ConvergenceSide.events)
        let indexDifferences = Differences(index[0], index[1])
        #expect(indexDifferences.isEmpty, "eventIndex: \(indexDifferences)")
        let pending = try stores.map { try StoreDump("pendingRedactions", of: $0).entries.count }
        #expect(pending == [pendingEach, pendingEach])
    }

    /// Whether a dumped share state (hex) has a creation: flag bit 0 of its second byte.
    private static func hasCreation(_ state: String) -> Bool {
        guard state.count >= 4, let flags = UInt8(state.dropFirst(2).prefix(2), radix: 16) else { return false }
        return flags & 1 != 0
    }
}
