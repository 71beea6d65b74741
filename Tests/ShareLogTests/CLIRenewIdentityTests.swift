import Foundation
import ShareLog
import Testing
import TestSupport
import TestTraits

/// `sharelog renew-identity`: the operator's renewal, for the one restore
/// a store's own signs cannot see (docs/CLI.md, docs/SYNC.md "Identity").
@Suite(.hangDeadline, .ownThread) struct CLIRenewIdentityTests {
    static func identity(_ cli: CLI) throws -> (replica: String, epoch: String) {
        let stats = try cli.run("stats", "--json").json
        return (stats["replicaID"] as? String ?? "?", stats["epoch"] as? String ?? "?")
    }

    /// A new replica id and epoch, durably: the events made before keep the
    /// old id, and the next one counts from 1 under the new one.
    @Test func aRenewalGivesANewIDAndEpochAndKeepsTheEvents() throws {
        let dir = TemporaryDirectory()
        let cli = CLI(store: dir.appending("store"))
        #expect(try cli.run("init").status == 0)
        let first = try #require(try cli.run("share", "create", "-", "--json", input: CLITests.card).json["id"] as? String)
        let before = try Self.identity(cli)

        let renewed = try cli.run("renew-identity", "--json")
        #expect(renewed.status == 0, "\(renewed.error)")
        #expect(renewed.json["previousReplicaID"] as? String == before.replica)
        #expect(renewed.json["reason"] as? String == "requested")
        let after = try Self.identity(cli)
        #expect(after.replica != before.replica && after.epoch != before.epoch)
        #expect(renewed.json["replicaID"] as? String == after.replica && renewed.json["epoch"] as? String == after.epoch)

        let second = try #require(try cli.run("share", "create", "-", "--json", input: CLITests.card).json["id"] as? String)
        let log = try cli.run("log", "--json").output.split(separator: "\n").map {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] ?? [:]
        }
        #expect(log.map { $0["id"] as? String } == [first, second])
        #expect(log.map { $0["origin"] as? String } == [before.replica, after.replica])
        #expect(log.map { $0["originCounter"] as? Int } == [1, 1])
        #expect(try cli.run("verify").status == 0)

        let text = try cli.run("renew-identity")
        let now = try Self.identity(cli)
        #expect(text.output == "replica \(after.replica) is now replica \(now.replica), epoch \(now.epoch) (requested); "
            + "its peers take one snapshot of it at their next sync\n")
    }

    /// A copied store renews when it opens for writing: the command says
    /// so and makes no second renewal, which would cost every peer a
    /// second snapshot.
    @Test func aCopyThatRenewedOnOpeningIsNotRenewedTwice() throws {
        let dir = TemporaryDirectory()
        let original = CLI(store: dir.appending("store"))
        #expect(try original.run("init").status == 0)
        _ = try original.run("share", "create", "-", input: CLITests.card)
        let source = try Self.identity(original)
        try FileManager.default.copyItem(atPath: original.store, toPath: dir.appending("copy"))
        let copy = CLI(store: dir.appending("copy"))

        let renewed = try copy.run("renew-identity", "--json")
        #expect(renewed.status == 0, "\(renewed.error)")
        #expect(renewed.json["previousReplicaID"] as? String == source.replica)
        #expect((renewed.json["reason"] as? String)?.contains("copied") == true, "\(renewed.json)")
        #expect(try Self.identity(copy).replica == renewed.json["replicaID"] as? String)
        #expect(try Self.identity(original) == source)
    }

    /// While another process has the store open for writing (here, this
    /// one), it would go on under the old id: refused, nothing written.
    /// Once it closes, the renewal goes through.
    @Test func aStoreOpenForWritingElsewhereIsNotRenewed() throws {
        let dir = TemporaryDirectory()
        let cli = CLI(store: dir.appending("store"))
        #expect(try cli.run("init").status == 0)
        let before = try Self.identity(cli)
        try withExtendedLifetime(try ShareStore.open(at: cli.store)) {
            let refused = try cli.run("renew-identity")
            #expect(refused.status == 1)
            #expect(refused.error.contains("is open for writing elsewhere"), "\(refused.error)")
            #expect(try Self.identity(cli) == before)
        }
        let renewed = try cli.run("renew-identity", "--json")
        #expect(renewed.status == 0, "\(renewed.error)")
        #expect(renewed.json["previousReplicaID"] as? String == before.replica)
    }

    /// No store: exit 3, and none is made.
    @Test func aMissingStoreIsNotMade() throws {
        let dir = TemporaryDirectory()
        let cli = CLI(store: dir.appending("missing"))
        #expect(try cli.run("renew-identity").status == 3)
        #expect(!FileManager.default.fileExists(atPath: cli.store))
    }
}
