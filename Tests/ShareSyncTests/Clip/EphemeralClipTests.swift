import Foundation
import Testing
import TestSupport

extension ClipLifecycleTests {
    /// A clip store deleted by the OS comes back as a new replica and
    /// re-pulls only the share it is asked for, by record name, from a
    /// main store that serves 500 others: one event, that share's card.
    @Test func aWipedClipStoreRepullsOnlyTheShareItOpens() throws {
        let bench = try ClipBench("wiped", seededShares: 500)
        let card = MarkedCard(name: "Fay Again", marker: "MARK-wiped-6e02")
        let share = try bench.share(card)
        try #require(try bench.main(at: Self.created).eventCount() == 501)
        let server = try bench.serve(at: Self.halfMinuteLater)
        let clip = bench.clip("clip", at: Self.halfMinuteLater)

        var replicas: [String] = []
        for round in 1...2 {
            if round == 2 { try FileManager.default.removeItem(atPath: clip.store) }
            let opened = try clip.run("clip", "open", share.link, "--connect", server, "--vcard")
            #expect(opened.status == 0, "round \(round): \(opened.error)")
            #expect(opened.output == card.bytes, "round \(round)")
            let stats = try clip.run("stats", "--json").checked("stats (clip)").json
            #expect(stats["events"] as? Int == 1, "round \(round)")
            #expect(stats["live"] as? Int == 1, "round \(round)")
            let log = try clip.run("log", "--json").checked("log (clip)").jsonLines
            #expect(log.map(Self.summary) == ["shareCreated \(share.id) with its card of \(card.bytes.count) bytes"], "round \(round)")
            replicas.append(try clip.replicaID())
        }
        #expect(replicas.count == 2 && replicas[0] != replicas[1], "the wiped store came back as replica \(replicas)")
    }

    /// A share revoked, or expired, on main while the clip was away, its
    /// store wiped or kept, reads as ended on the next open: never live
    /// again. A wiped store gets none of its card back, and a kept one
    /// holds none of it any more.
    @Test func aShareThatEndedWhileTheClipWasAwayIsNeverResurrected() throws {
        let bench = try ClipBench("away", seededShares: 50)
        let revoking = MarkedCard(name: "Gus Gone", marker: "MARK-away-revoked-0c77")
        let expiring = MarkedCard(name: "Hal Short", marker: "MARK-away-expired-d315")
        let revoked = try bench.share(revoking)
        let expired = try bench.share(expiring, ttl: "1m")
        var server = try bench.serve(at: Self.halfMinuteLater)
        // Two clips open both shares while they are live; each then holds both cards.
        let wiped = bench.clip("wiped", at: Self.halfMinuteLater)
        let kept = bench.clip("kept", at: Self.halfMinuteLater)
        for clip in [wiped, kept] {
            for share in [revoked, expired] {
                #expect(try clip.run("clip", "open", share.link, "--connect", server).status == 0)
            }
            #expect(try ClipBench.files(holding: revoking.marker, in: clip.store) == ["data.mdb"])
            #expect(try ClipBench.files(holding: expiring.marker, in: clip.store) == ["data.mdb"])
        }

        // Away: one clip store is wiped; main revokes one share, the other expires.
        try FileManager.default.removeItem(atPath: wiped.store)
        let revocation = try bench.main(at: "2026-12-01T10:01:30Z").run("share", "revoke", revoked.id)
        #expect(revocation.succeeded, "\(revocation.error)")
        server = try bench.serve(at: Self.twoMinutesLater)

        for (label, store) in [("wiped", wiped.store), ("kept", kept.store)] {
            let clip = SharelogCLI(store: store, now: Self.twoMinutesLater)
            let again = try clip.run("--json", "clip", "open", revoked.link, "--connect", server)
            #expect(again.status == 4, "\(label): \(again.error)")
            #expect(again.json["status"] as? String == "expired", "\(label)")
            #expect(again.json["reason"] as? String == "revoked", "\(label)")
            #expect(again.json["expiredAt"] as? String == "2026-12-01T10:01:30.000Z", "\(label)")
            #expect(again.json["preview"] == nil, "\(label)")
            let ended = try clip.run("--json", "clip", "open", expired.link, "--connect", server)
            #expect(ended.status == 4, "\(label): \(ended.error)")
            #expect(ended.json["reason"] as? String == "ttl", "\(label)")
            #expect(!again.text.contains("MARK-") && !ended.text.contains("MARK-"), "\(label)")
            for link in [revoked.link, expired.link] {
                #expect(try clip.run("clip", "open", link, "--connect", server, "--vcard").status == 4, "\(label)")
            }
        }
        // Neither store holds a byte of either card; the wiped one holds only the tombstones.
        for store in [wiped.store, kept.store] {
            for card in [revoking, expiring] {
                #expect(try ClipBench.files(holding: card.marker, in: store) == [], "\(card.marker) in \(store)")
            }
        }
        let log = try SharelogCLI(store: wiped.store, now: Self.twoMinutesLater).run("log", "--json").checked("log (wiped)").jsonLines
        #expect(log.map(Self.summary).sorted() == [
            "shareCreated \(expired.id) redacted", "shareCreated \(revoked.id) redacted", "shareExpired \(revoked.id) revoked",
        ].sorted())
        // The kept store, offline now, still answers ended, not live.
        try bench.stopServer()
        let offline = try SharelogCLI(store: kept.store, now: Self.twoMinutesLater)
            .run("--json", "clip", "open", revoked.link, "--connect", server)
        #expect(offline.status == 4, "\(offline.error)")
        #expect(offline.json["reason"] as? String == "revoked")
    }

    /// A clip that never talks to main again forgets a card on its own: at
    /// the share's expiry by its clock, its `sweep` and `compact` leave no
    /// byte of the card in its files, and it answers `expired`.
    @Test func aClipOnItsOwnSweepsAndCompactsAnExpiredCardAway() throws {
        let bench = try ClipBench("alone")
        let card = MarkedCard(name: "Ida Alone", marker: "MARK-alone-83fa")
        let share = try bench.share(card)
        let server = try bench.serve(at: Self.halfMinuteLater)
        let clip = bench.clip("clip", at: Self.halfMinuteLater)
        #expect(try clip.run("clip", "open", share.link, "--connect", server).status == 0)
        try bench.stopServer()
        #expect(try ClipBench.files(holding: card.marker, in: clip.store) == ["data.mdb"])

        let later = bench.clip("clip", at: Self.eightDaysLater)
        let swept = try later.run("sweep", "--json")
        #expect(swept.status == 0, "\(swept.error)")
        #expect(swept.json["expired"] as? Int == 1)
        let compacted = try later.run("compact", "--json")
        #expect(compacted.status == 0, "\(compacted.error)")
        #expect(compacted.json["redacted"] as? Int == 1)
        #expect(try ClipBench.files(holding: card.marker, in: clip.store) == [])
        let log = try later.run("log", "--json").checked("log (clip)").jsonLines
        #expect(log.map(Self.summary) == ["shareCreated \(share.id) redacted", "shareExpired \(share.id) ttl"])
        let answer = try later.run("clip", "last")
        #expect(answer.status == 4, "\(answer.error)")
        #expect(answer.text.contains("expired:  2026-12-08T10:00:00.000Z (ttl)"), "\(answer.text)")
        #expect(!answer.text.contains("MARK-"))
    }
}
