import Foundation
import Testing
import TestSupport

extension SyncIntegrationTests {
    /// A clip store deleted and made again at the same path syncs again:
    /// it gets the share, and the main store is exactly as it was, with
    /// the cursor of its one main peer untouched and no trace of the clips.
    @Test func aClipStoreDeletedAndMadeAgainSyncsWithoutConfusingMain() throws {
        let directory = TemporaryDirectory("reclip")
        let main = SharelogCLI(store: directory.appending("main"), now: Self.now)
        #expect(try main.run("init").succeeded)
        let cards = (0..<3).map { TestCard.make("Main", $0) }
        let ids = try cards.map { card in try #require(try main.run("share", "create", "-", "--json", input: card).json["id"] as? String) }
        let wanted = ids[1]

        let server = try ServeProcess(main, socket: directory.appending("s.sock"))
        defer { _ = try? server.stop() }
        // A main peer syncs both ways, so the main store holds one cursor.
        let peer = SharelogCLI(store: directory.appending("peer"), now: Self.now)
        #expect(try peer.run("sync", "--connect", server.endpoint, "--both").succeeded)
        let peerReplica = try #require(try peer.run("stats", "--json").json["replicaID"] as? String)
        let peersBefore = try main.run("peers", "--json")
        #expect(peersBefore.jsonArray?.compactMap { $0["peer"] as? String } == [peerReplica])
        let logBefore = try main.run("log", "--json").text
        #expect(logBefore.split(separator: "\n").count == 3)

        let clip = SharelogCLI(store: directory.appending("clip"), now: Self.now)
        var clipReplicas: [String] = []
        for round in 1...2 {
            if round == 2 { try FileManager.default.removeItem(atPath: clip.store) }
            let synced = try clip.run("sync", "--connect", server.endpoint, "--role", "clip", "--only", wanted, "--json")
            #expect(synced.succeeded, "round \(round): \(synced.error)")
            #expect(synced.json["found"] as? [String] == [wanted], "round \(round)")
            #expect(synced.json["eventsApplied"] as? Int == 1, "round \(round)")
            #expect(try clip.run("share", "get", wanted, "--vcard").output == cards[1], "round \(round)")
            let stats = try clip.run("stats", "--json").json
            #expect(stats["events"] as? Int == 1, "round \(round)")
            #expect(stats["live"] as? Int == 1, "round \(round)")
            clipReplicas.append(try #require(stats["replicaID"] as? String))
            #expect(try clip.run("peers", "--json").jsonArray?.isEmpty == true, "round \(round)")
        }
        // The second clip store is a new replica, not the first one back.
        #expect(clipReplicas[0] != clipReplicas[1])

        #expect(try server.stop().succeeded)
        // Main: the same one cursor, to the byte; the same log; verify passes.
        #expect(try main.run("peers", "--json").text == peersBefore.text)
        #expect(try main.run("log", "--json").text == logBefore)
        #expect(try main.run("verify").succeeded)
    }
}
