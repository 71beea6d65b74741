import Testing
import TestSupport

extension SyncIntegrationTests {
    /// 50 clip processes at once fetch 1,000 shares between them, 20
    /// each, each into its own store: every one succeeds, and every clip
    /// store answers each of its shares with the card the test wrote.
    @Test func fiftyClipsAtOnceEachGetTheirOwnShares() throws {
        let directory = TemporaryDirectory("clips")
        let mainPath = directory.appending("main")
        let cards = (0..<1_000).map { TestCard.make("Main", $0) }
        let names = try SeedStore.build(at: mainPath) { try SeedStore.create(cards, in: $0) }.map { "\($0)" }
        let server = try ServeProcess(SharelogCLI(store: mainPath, now: Self.now), socket: directory.appending("s.sock"))
        defer { _ = try? server.stop() }

        // Clip k fetches shares k, k + 50, k + 100, …: all 1,000 between them.
        let clips = (0..<50).map { SharelogCLI(store: directory.appending("clip\($0)"), now: Self.now) }
        let shares = (0..<50).map { clip in Array(stride(from: clip, to: names.count, by: 50)) }
        let running = try zip(clips, shares).map { clip, indices in
            try clip.start(["sync", "--connect", server.endpoint, "--role", "clip", "--json"] + indices.flatMap { ["--only", names[$0]] })
        }
        let results = try running.map { CLIResult(try $0.finish(timeout: .seconds(120))) }
        for (clip, result) in results.enumerated() {
            #expect(result.succeeded, "clip \(clip): \(result.error)")
            #expect(result.json["found"] as? [String] == shares[clip].map { names[$0] }, "clip \(clip)")
        }

        let answers = try SharelogCLI.runAll(zip(clips, shares).flatMap { clip, indices in
            indices.map { (cli: clip, arguments: ["share", "get", names[$0], "--vcard"]) }
        })
        let asked = shares.flatMap { $0 }
        #expect(Set(asked).count == 1_000)
        for (answer, index) in zip(answers, asked) {
            #expect(answer.output == cards[index], "share \(index)")
        }
        let stopped = try server.stop()
        #expect(stopped.succeeded)
        // One session a clip, each ended well. A clip the full pool turned
        // away (`refused: busy (16 clip sessions)`) tried again, as
        // documented: a clip makes its store while it holds its place (only
        // a server that accepted makes one), so 50 at once may meet a full pool.
        let lines = stopped.error.split(separator: "\n").filter { $0.contains(" clip ") && !$0.contains(": refused: busy (") }
        #expect(lines.count == 50, "\(lines)")
        #expect(stopped.error.components(separatedBy: "fetch: ended well").count - 1 == 50)
    }
}
