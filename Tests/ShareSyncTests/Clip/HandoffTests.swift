import Foundation
import Testing
import TestSupport

extension ClipLifecycleTests {
    /// `handoff --from CLIP` adopts the clip's live shares into the full
    /// app's store, card and all, and leaves the expired and revoked ones
    /// behind; it says the clip may now be deleted. A second run finds the
    /// clip handed off and changes nothing: the app's log, stats, cursors
    /// and data file are the same to the byte.
    @Test func handoffAdoptsTheLiveSharesOnce() throws {
        let stage = try HandoffStage("handoff")
        let app = SharelogCLI(store: stage.appPath, now: Self.twoMinutesLater)
        let dataFile = URL(fileURLWithPath: stage.appPath).appendingPathComponent("data.mdb")
        let dataBefore = try Data(contentsOf: dataFile)

        let first = try app.run("handoff", "--from", stage.clipPath)
        #expect(first.status == 0, "\(first.error)")
        #expect(first.text == """
            adopted 2 shares from the clip (2 new events); 2 shares that had ended stayed behind
            the clip store \(stage.clipPath) is marked as handed off; it may now be deleted

            """)
        for (id, card) in zip(stage.adopted, stage.adoptedCards) {
            let got = try app.run("share", "get", id, "--vcard")
            #expect(got.status == 0, "\(id): \(got.error)")
            #expect(got.output == card.bytes, "\(id)")
        }
        for id in [stage.expired, stage.revoked] {
            #expect(try app.run("share", "get", id).status == 3, "\(id) was adopted")
        }
        for card in [stage.expiredCard, stage.revokedCard] {
            #expect(try ClipBench.files(holding: card.marker, in: stage.appPath) == [], "\(card.marker) reached the app's files")
        }
        let ids = try app.logIDs()
        #expect(ids.sorted() == stage.expectedAppEventIDs)
        #expect(try app.verify() == 0)

        // Again, a minute later: nothing to do, and nothing changes.
        let log = try app.run("log", "--json").checked("log (app)").text
        let stats = try app.run("stats", "--json").checked("stats (app)").text
        let peers = try app.run("peers", "--json").checked("peers (app)").text
        let dataAfterFirst = try Data(contentsOf: dataFile)
        #expect(dataAfterFirst != dataBefore, "the first handoff left the data file as it was")
        let again = try SharelogCLI(store: stage.appPath, now: "2026-12-01T10:03:00Z").run("--json", "handoff", "--from", stage.clipPath)
        #expect(again.status == 0, "\(again.error)")
        #expect(again.json["alreadyHandedOffAt"] as? String == "2026-12-01T10:02:00.000Z")
        #expect(again.json["sharesAdopted"] as? Int == 0)
        #expect(again.json["eventsApplied"] as? Int == 0)
        #expect(again.json["eventsAlreadyHeld"] as? Int == 0)
        let third = try app.run("handoff", "--from", stage.clipPath)
        #expect(third.status == 0, "\(third.error)")
        #expect(third.text == "the clip store \(stage.clipPath) was handed off to this store at 2026-12-01T10:02:00.000Z; "
            + "nothing to do. It may be deleted.\n")
        #expect(try app.run("log", "--json").text == log)
        #expect(try app.run("stats", "--json").text == stats)
        #expect(try app.run("peers", "--json").text == peers)
        #expect(try Data(contentsOf: dataFile) == dataAfterFirst, "a handoff with nothing to do wrote to the app's data file")
    }
}
