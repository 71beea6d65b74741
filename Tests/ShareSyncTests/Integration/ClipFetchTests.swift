import Testing
import TestSupport

extension SyncIntegrationTests {
    /// A clip asks a main store of 10,000 shares for one id: it gets that
    /// share, card and all, in its own store, and nothing else. An id the
    /// main store never held is reported unknown and leaves no trace.
    @Test func aClipFetchBringsExactlyTheShareItNames() throws {
        let directory = TemporaryDirectory("clip")
        let mainPath = directory.appending("main")
        let cards = (0..<10_000).map { TestCard.make("Main", $0) }
        let names = try SeedStore.build(at: mainPath) { try SeedStore.create(cards, in: $0) }.map { "\($0)" }
        let unknown = "6f1c2a9e-58b4-4d9a-9f0e-2b7c1d3e4f50"
        try #require(names.count == 10_000 && !names.contains(unknown))
        let index = 7_321
        let wanted = names[index]

        let main = SharelogCLI(store: mainPath, now: Self.now)
        let mainReplica = try #require(try main.run("stats", "--json").json["replicaID"] as? String)
        let server = try ServeProcess(main, socket: directory.appending("s.sock"))
        defer { _ = try? server.stop() }

        let clip = SharelogCLI(store: directory.appending("clip"), now: Self.now)
        let synced = try clip.run("sync", "--connect", server.endpoint, "--role", "clip", "--only", wanted, "--only", unknown, "--json")
        #expect(synced.succeeded, "\(synced.error)")
        #expect(synced.json["found"] as? [String] == [wanted])
        #expect(synced.json["unknown"] as? [String] == [unknown])
        #expect(synced.json["eventsApplied"] as? Int == 1)

        // The clip answers from its own store: the card as written, and the
        // same answer as the main store.
        let card = try clip.run("share", "get", wanted, "--vcard")
        #expect(card.succeeded)
        #expect(card.output == cards[index])
        let clipAnswer = try clip.run("share", "get", wanted, "--json")
        #expect(clipAnswer.json["status"] as? String == "live")
        #expect(clipAnswer.text == (try main.run("share", "get", wanted, "--json")).text)

        // It holds nothing else: one live share, one event, the creation of that share.
        let stats = try clip.run("stats", "--json").json
        #expect(stats["live"] as? Int == 1)
        #expect(stats["expired"] as? Int == 0)
        #expect(stats["events"] as? Int == 1)
        let log = try clip.run("log", "--json").jsonLines
        #expect(log.count == 1)
        #expect(log.first?["kind"] as? String == "shareCreated")
        #expect(log.first?["id"] as? String == wanted)
        #expect(log.first?["origin"] as? String == mainReplica)
        #expect(log.first?["vCardBytes"] as? Int == cards[index].count)
        #expect(try clip.run("share", "get", names[index + 1]).status == 3)
        #expect(try clip.run("share", "get", unknown).status == 3)
        #expect(try clip.run("peers", "--json").jsonArray?.isEmpty == true)

        // A clip that asks only for the unknown id ends up with an empty store.
        let stranger = SharelogCLI(store: directory.appending("stranger"), now: Self.now)
        let missed = try stranger.run("sync", "--connect", server.endpoint, "--role", "clip", "--only", unknown, "--json")
        #expect(missed.succeeded, "\(missed.error)")
        #expect(missed.json["found"] as? [String] == [])
        #expect(missed.json["unknown"] as? [String] == [unknown])
        let empty = try stranger.run("stats", "--json").json
        #expect(empty["events"] as? Int == 0)
        #expect(empty["live"] as? Int == 0)
        #expect(try stranger.run("log", "--json").text.isEmpty)

        // And the main store is as it was: no event, no cursor from a clip.
        #expect(try server.stop().succeeded)
        let after = try main.run("stats", "--json").json
        #expect(after["events"] as? Int == 10_000)
        #expect(after["live"] as? Int == 10_000)
        #expect(try main.run("peers", "--json").jsonArray?.isEmpty == true)
    }
}
