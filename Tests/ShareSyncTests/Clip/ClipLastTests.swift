import Testing
import TestSupport

extension ClipLifecycleTests {
    /// `clip last`, relaunched without a link and without any server,
    /// shows the share the clip showed last (the second of two opened);
    /// past that share's expiry by the clock, it says expired and shows
    /// nothing of the card.
    @Test func clipLastShowsTheLastShareUntilItExpires() throws {
        let bench = try ClipBench("last")
        let firstCard = MarkedCard(name: "Jo First", marker: "MARK-last-first-11d9")
        let lastCard = MarkedCard(name: "Kim Last", marker: "MARK-last-second-5b60")
        let first = try bench.share(firstCard)
        let last = try bench.share(lastCard, ttl: "1d")
        let server = try bench.serve(at: Self.halfMinuteLater)
        let clip = bench.clip("clip", at: Self.halfMinuteLater)
        for share in [first, last] {
            #expect(try clip.run("clip", "open", share.link, "--connect", server).status == 0)
        }
        try bench.stopServer()

        let shown = try clip.run("--json", "clip", "last")
        #expect(shown.status == 0, "\(shown.error)")
        #expect(shown.json["id"] as? String == last.id)
        #expect(shown.json["status"] as? String == "live")
        #expect((shown.json["preview"] as? [String: Any])?["name"] as? String == "Kim Last")
        let card = try clip.run("clip", "last", "--vcard")
        #expect(card.status == 0, "\(card.error)")
        #expect(card.output == lastCard.bytes)

        // A day and a half later the last share has expired (TTL one day); the first one has not.
        let later = bench.clip("clip", at: "2026-12-02T22:00:00Z")
        let expired = try later.run("clip", "last")
        #expect(expired.status == 4, "\(expired.error)")
        #expect(expired.text.contains("id:       \(last.id)"), "\(expired.text)")
        #expect(expired.text.contains("status:   expired"), "\(expired.text)")
        #expect(expired.text.contains("expired:  2026-12-02T10:00:00.000Z (ttl)"), "\(expired.text)")
        #expect(!expired.text.contains(lastCard.marker) && !expired.text.contains("Kim Last"), "\(expired.text)")
        let expiredJSON = try later.run("--json", "clip", "last")
        #expect(expiredJSON.status == 4)
        #expect(expiredJSON.json["status"] as? String == "expired")
        #expect(expiredJSON.json["preview"] == nil)
        let expiredCard = try later.run("clip", "last", "--vcard")
        #expect(expiredCard.status == 4)
        #expect(expiredCard.output.isEmpty)
        #expect(!expiredCard.error.contains(lastCard.marker))
    }

    /// A clip that has not shown a share yet, with a store (it opened an
    /// unknown link) or without one, has nothing to relaunch: exit 3, and
    /// the message says how to open one.
    @Test func clipLastOnAClipThatNeverShowedAShareIsNotFound() throws {
        let bench = try ClipBench("nolast")
        let server = try bench.serve(at: Self.halfMinuteLater)
        let clip = bench.clip("clip", at: Self.halfMinuteLater)
        let unknown = "https://cards.example.com/appclip?id=0b7e5f3c-2a41-4c8e-9d6f-3e1a2b4c5d60"
        // Made first: a store that clip open made for a share the server
        // does not know would be removed again.
        #expect(try clip.run("init").succeeded)
        #expect(try clip.run("clip", "open", unknown, "--connect", server).status == 3)
        try #require(try clip.eventCount() == 0)

        let never = try clip.run("clip", "last")
        #expect(never.status == 3, "\(never.error)")
        #expect(never.text.isEmpty)
        #expect(never.error.contains("this clip has not shown a share yet"), "\(never.error)")
        #expect(never.error.contains("sharelog clip open LINK"), "\(never.error)")

        let noStore = try bench.clip("none", at: Self.halfMinuteLater).run("clip", "last")
        #expect(noStore.status == 3, "\(noStore.error)")
        #expect(noStore.text.isEmpty)
        #expect(noStore.error.contains("no ShareLog store at"), "\(noStore.error)")
    }
}
