import Foundation
import SampleCards
import Testing
import TestSupport
import TestTraits
@testable import ShareLog

/// `sharelog share revoke`, as docs/CLI.md describes it: exit 0 and the
/// time the share ended, 3 when unknown, 4 when it already ended, and
/// nothing written by any refusal.
@Suite(.ownThread) struct CLIRevokeTests {
    static let card = Data("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Jane Appleseed\r\nORG:Acme;Sales\r\nEND:VCARD\r\n".utf8)

    /// A store made by `init`, with one share created at 10:00 for an hour.
    static func storeWithAShare(_ dir: TemporaryDirectory) throws -> (cli: CLI, id: String) {
        let cli = CLI(store: dir.appending("store"), now: "2026-12-01T10:00:00Z")
        #expect(try cli.run("init").status == 0)
        let created = try cli.run("share", "create", "-", "--ttl", "1h", "--json", input: card)
        #expect(created.status == 0)
        return (cli, try #require(created.json["id"] as? String))
    }

    @Test func revokeByIDSaysWhenTheShareEndedAndGetThenReportsItRevoked() throws {
        let dir = TemporaryDirectory()
        let (cli, id) = try Self.storeWithAShare(dir)
        let revoked = try cli.run("share", "revoke", id, "--now", "2026-12-01T10:30:00Z")
        #expect(revoked.status == 0)
        #expect(revoked.output == "revoked \(id) at 2026-12-01T10:30:00.000Z\n")
        #expect(revoked.error == "")
        let fetched = try cli.run("share", "get", id, "--json", "--now", "2026-12-01T10:31:00Z")
        #expect(fetched.status == 4)
        #expect(fetched.json["status"] as? String == "expired")
        #expect(fetched.json["reason"] as? String == "revoked")
        #expect(fetched.json["expiredAt"] as? String == "2026-12-01T10:30:00.000Z")
        #expect(try cli.run("share", "get", id, "--vcard", "--now", "2026-12-01T10:31:00Z").output == "")
        let log = CLI.jsonLines(try cli.run("log", "--json").output)
        #expect(log.count == 2)
        #expect(log.last?["kind"] as? String == "shareExpired")
        #expect(log.last?["reason"] as? String == "revoked")
        #expect(log.last?["at"] as? String == "2026-12-01T10:30:00.000Z")
    }

    @Test func revokeByLinkWithJSONPrintsOneObject() throws {
        let dir = TemporaryDirectory()
        let (cli, id) = try Self.storeWithAShare(dir)
        let revoked = try cli.run("share", "revoke", "https://cards.example.com/appclip?id=\(id)", "--json", "--now", "2026-12-01T10:30:00.250Z")
        #expect(revoked.status == 0)
        #expect(revoked.output == #"{"expiredAt":"2026-12-01T10:30:00.250Z","id":"\#(id)","reason":"revoked","status":"expired"}"# + "\n")
    }

    @Test func everyRefusedRevokeExitsWithItsDocumentedCodeAndWritesNothing() throws {
        let dir = TemporaryDirectory()
        let (cli, live) = try Self.storeWithAShare(dir)
        let ended = try #require(try cli.run("share", "create", "-", "--json", input: Self.card).json["id"] as? String)
        #expect(try cli.run("share", "revoke", ended, "--now", "2026-12-01T10:20:00Z").status == 0)
        let unknown = "6f1c2a9e-58b4-4d9a-9f0e-2b7c1d3e4f50"
        let refusals: [(arguments: [String], status: Int32, error: String)] = [
            (["share", "revoke", ended], 4,
             "sharelog: share \(ended) expired at 2026-12-01T10:20:00.000Z (revoked); ask its owner to share the card again\n"),
            (["share", "revoke", ended, "--json"], 4,
             #"{"code":"expired","exitCode":4,"message":"share \#(ended) expired at 2026-12-01T10:20:00.000Z (revoked); ask its owner to share the card again"}"#
                + "\n"),
            (["share", "revoke", live, "--now", "2026-12-01T11:00:00Z"], 4,
             "sharelog: share \(live) expired at 2026-12-01T11:00:00.000Z (ttl); ask its owner to share the card again\n"),
            (["share", "revoke", unknown], 3,
             "sharelog: no share \(unknown) in this store; check the id, or sync from the replica that made it\n"),
            (["share", "revoke", "not-an-id"], 5,
             "sharelog: 'not-an-id' is not a record name; record names are UUIDs like 6f1c2a9e-58b4-4d9a-9f0e-2b7c1d3e4f50\n"),
            (["share", "revoke"], 2, "sharelog: missing share id or link; see 'sharelog help'\n"),
            (["share", "revoke", live, "extra"], 2, "sharelog: unexpected argument 'extra'; see 'sharelog help'\n"),
            (["share", "revoke", live, "--ttl", "1h"], 2, "sharelog: --ttl is not an option of 'share revoke'; see 'sharelog help'\n"),
            (["share", "revoke", live, "--verbose"], 2, "sharelog: unknown option --verbose; see 'sharelog help'\n"),
            (["share", "revoke", live, "--now", "yesterday"], 5,
             "sharelog: --now 'yesterday' is not an ISO 8601 time such as 2026-12-07T09:30:00Z\n"),
        ]
        let before = try cli.dataFile()
        for refusal in refusals {
            let result = try cli.run(arguments: refusal.arguments)
            #expect(result.status == refusal.status, "\(refusal.arguments)")
            #expect(result.error == refusal.error, "\(refusal.arguments)")
            #expect(result.output == "", "\(refusal.arguments)")
        }
        // A link on another domain names no share of this store.
        let foreignLink = try cli.run("share", "revoke", "https://evil-example.com/appclip?id=\(live)")
        #expect(foreignLink.status == 5)
        #expect(foreignLink.error.hasPrefix("sharelog: not a share link: "))
        #expect(try cli.dataFile() == before)
        // The live share is still live, its card intact.
        #expect(try cli.run("share", "get", live, "--vcard", "--now", "2026-12-01T10:59:59.999Z").output == String(decoding: Self.card, as: UTF8.self))
    }

    @Test func revokeWithoutAStoreExitsNotFoundAndCreatesNothing() throws {
        let dir = TemporaryDirectory()
        let cli = CLI(store: dir.appending("missing"))
        let result = try cli.run("share", "revoke", "6f1c2a9e-58b4-4d9a-9f0e-2b7c1d3e4f50")
        #expect(result.status == 3)
        #expect(result.error == "sharelog: no ShareLog store at \(cli.store); run 'sharelog init' or pass --store\n")
        #expect(!FileManager.default.fileExists(atPath: cli.store))
    }

    /// From its `expiresAt` on a share has ended by its time to live (lazy
    /// expiry), so a revoke at that very millisecond is refused as expired
    /// (ttl) and writes nothing; one millisecond earlier it is a revoke.
    @Test func aRevokeAtExactlyExpiresAtIsRefusedAndOneMillisecondEarlierSucceeds() throws {
        let dir = TemporaryDirectory()
        let (cli, id) = try Self.storeWithAShare(dir)
        let before = try cli.dataFile()
        let atExpiry = try cli.run("share", "revoke", id, "--now", "2026-12-01T11:00:00Z")
        #expect(atExpiry.status == 4)
        #expect(atExpiry.error == "sharelog: share \(id) expired at 2026-12-01T11:00:00.000Z (ttl); ask its owner to share the card again\n")
        #expect(try cli.dataFile() == before)
        let justBefore = try cli.run("share", "revoke", id, "--now", "2026-12-01T10:59:59.999Z")
        #expect(justBefore.status == 0)
        #expect(justBefore.output == "revoked \(id) at 2026-12-01T10:59:59.999Z\n")
        let fetched = try cli.run("share", "get", id, "--json", "--now", "2026-12-01T11:00:00Z")
        #expect(fetched.json["reason"] as? String == "revoked")
        #expect(fetched.json["expiredAt"] as? String == "2026-12-01T10:59:59.999Z")
        // Revoked, the share is off the expiry index: the sweep at its old
        // expiry has nothing left to do.
        #expect(try cli.run("sweep", "--json", "--now", "2026-12-01T11:00:00Z").json["expired"] as? Int == 0)
    }

    @Test func aShareAnotherReplicaCreatedIsRevokedByThisReplica() throws {
        let dir = TemporaryDirectory()
        let cli = CLI(store: dir.appending("store"), now: "2026-12-01T10:00:00Z")
        let ours = try #require(try cli.run("init", "--json").json["replicaID"] as? String)
        let other = ForeignReplica()
        let name = RecordName.random()
        do {
            // LMDB is multi-process: sync the other replica's creation in
            // from this process, then close the store again.
            let store = try ShareStore.open(at: cli.store)
            let createdAt = try #require(Timestamp(iso8601: "2026-12-01T09:00:00Z"))
            try store.apply([other.created(name, vCard: Array(Self.card), at: createdAt, ttl: .seconds(7200))])
        }
        let revoked = try cli.run("share", "revoke", "\(name)", "--json")
        #expect(revoked.status == 0)
        #expect(revoked.output == #"{"expiredAt":"2026-12-01T10:00:00.000Z","id":"\#(name)","reason":"revoked","status":"expired"}"# + "\n")
        let log = CLI.jsonLines(try cli.run("log", "--json").output)
        #expect(log.count == 2)
        #expect(log.first?["origin"] as? String == "\(other.id)")
        #expect(log.first?["kind"] as? String == "shareCreated")
        #expect(log.last?["origin"] as? String == ours)
        #expect(log.last?["originCounter"] as? Int == 1)
        #expect(log.last?["id"] as? String == "\(name)")
        #expect(try cli.run("compact", "--json").json["redacted"] as? Int == 1)
        #expect(CLI.jsonLines(try cli.run("log", "--json").output).first?["redacted"] as? Bool == true)
        #expect(try cli.run("verify").status == 0)
    }

    /// Each command is its own process: the revoke, the sweep and the
    /// compaction share no memory, and still no byte of the card is left.
    @Test func afterRevokeSweepAndCompactNoByteOfTheCardIsInTheFiles() throws {
        let dir = TemporaryDirectory()
        let cli = CLI(store: dir.appending("store"), now: "2026-12-01T10:00:00Z")
        _ = try cli.run("init")
        let marker = "Qwertzuiop-Revoked-\(UUID().uuidString)"
        var card = SampleCard.make(index: 1, photoBytes: 20_000)
        card.insert(contentsOf: Array("NOTE:\(marker)\r\n".utf8), at: card.count - "END:VCARD\r\n".utf8.count)
        let id = try #require(try cli.run("share", "create", "-", "--json", input: Data(card)).json["id"] as? String)
        for index in 2..<12 {
            #expect(try cli.run("share", "create", "-", "--ttl", index.isMultiple(of: 2) ? "1h" : "7d", input: Data(SampleCard.make(index: index))).status == 0)
        }
        #expect(try StoreFiles.holding(marker, in: cli.store) == ["data.mdb"])
        #expect(try cli.run("share", "revoke", id, "--now", "2026-12-01T10:10:00Z").status == 0)
        #expect(try cli.run("sweep", "--json", "--now", "2026-12-01T11:00:00Z").json["expired"] as? Int == 5)
        #expect(try cli.run("compact", "--json").json["redacted"] as? Int == 6)
        #expect(try StoreFiles.holding(marker, in: cli.store) == [])
        #expect(try cli.run("verify").status == 0)
    }
}
