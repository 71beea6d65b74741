import Foundation
import Testing
import TestSupport

extension SyncIntegrationTests {
    /// A main store replaced by an old copy of itself takes a new replica
    /// id before it writes again, so its next share gets an id no peer
    /// holds; a follower that pulled the shares made after the copy hands
    /// them back. Both end with every share, and no event id stands for two
    /// different events.
    ///
    /// With `removeThenCopy` on ext4 the restored data file gets the old
    /// one's inode number, and ShareLog, which tells a restored file by
    /// that number alone, misses the restore: the store keeps its replica
    /// id, its next share takes the id of a late share the follower holds,
    /// and the two replicas part for good. A known issue while the inode
    /// was reused, until the engine tells files apart by more than the
    /// inode number.
    @Test(arguments: RestoreMethod.allCases)
    func aMainStoreRestoredFromAnOldCopyDoesNotReuseEventIDs(_ method: RestoreMethod) throws {
        let directory = TemporaryDirectory("restore")
        let main = SharelogCLI(store: directory.appending("main"), now: Self.now)
        let follower = SharelogCLI(store: directory.appending("follower"), now: Self.now)
        let socket = directory.appending("s.sock")
        #expect(try main.run("init").succeeded)
        var cards: [String: [UInt8]] = [:]
        func create(_ label: String) throws -> String {
            let card = TestCard.make(label, cards.count)
            let id = try #require(try main.run("share", "create", "-", "--json", input: card).json["id"] as? String)
            cards[id] = card
            return id
        }
        func sync(_ way: String) throws -> CLIResult {
            let server = try ServeProcess(main, socket: socket)
            defer { _ = try? server.stop() }
            let synced = try follower.run("sync", "--connect", server.endpoint, way, "--json")
            #expect(synced.succeeded, "\(way): \(synced.error)")
            #expect(try server.stop().succeeded)
            return synced
        }

        let early = try (0..<3).map { _ in try create("Early") }
        _ = try sync("--pull")
        let copy = directory.appending("main-copy")
        try RestoreMethod.copyDirectory(main.store, to: copy)
        let late = try (0..<2).map { _ in try create("Late") }
        #expect(try sync("--pull").json["eventsApplied"] as? Int == 2)
        let oldReplica = try #require(try main.run("stats", "--json").json["replicaID"] as? String)
        let oldInode = try RestoreMethod.dataFileInode(main.store)

        try method.restore(copy, over: main.store, scratch: directory.appending("main-restoring"))
        // On ext4 the restored file may get its old inode number back: the
        // store must tell it apart all the same.
        print("restore by \(method): data.mdb inode reused: \(try RestoreMethod.dataFileInode(main.store) == oldInode)")
        do {
            let after = try create("After")
            let newReplica = try #require(try main.run("stats", "--json").json["replicaID"] as? String)
            #expect(newReplica != oldReplica)

            // The follower pulls the new share, then hands back the late ones.
            #expect(try sync("--pull").json["eventsApplied"] as? Int == 1)
            _ = try sync("--both")

            // Each side holds one creation of every share, under the id it
            // was made with: the early and late ones from the old replica
            // id, the one made after the restore from the new one.
            let everyShare = Set(early + late + [after])
            var contentByID: [String: String] = [:]
            for cli in [main, follower] {
                let log = try cli.run("log", "--json").jsonLines
                #expect(log.count == everyShare.count, "\(cli.store)")
                #expect(Set(log.compactMap { $0["id"] as? String }) == everyShare, "\(cli.store)")
                for line in log {
                    let share = line["id"] as? String ?? "?"
                    #expect(line["origin"] as? String == (share == after ? newReplica : oldReplica), "\(cli.store): \(share)")
                    let id = "\(line["origin"] ?? "?")/\(line["originCounter"] ?? "?")"
                    let content = "\(line["kind"] ?? "?") \(share) \(line["vCardBytes"] ?? "?")"
                    if let seen = contentByID.updateValue(content, forKey: id) {
                        #expect(seen == content, "event \(id) is two different events")
                    }
                }
                for (id, card) in cards { #expect(try cli.run("share", "get", id, "--vcard").output == card, "\(cli.store): \(id)") }
                #expect(try cli.run("verify").succeeded, "\(cli.store)")
            }
            #expect(contentByID.count == everyShare.count)
        }
    }
}
