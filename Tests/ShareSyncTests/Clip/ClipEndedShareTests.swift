import Foundation
import Testing
import TestSupport

extension ClipLifecycleTests {
    /// A share that expired answers `expired` (exit 4), one that was
    /// revoked says so (exit 4), and an unknown one `notFound` (exit 3).
    /// None leaves its card in the clip store, not a byte of it in the
    /// store's files: at most the share's tombstone, a creation without
    /// its card and the share's end, or nothing at all for the unknown one.
    @Test func anEndedOrUnknownShareLeavesNothingButItsTombstone() throws {
        let bench = try ClipBench("ended")
        let expiring = MarkedCard(name: "Cy Brief", marker: "MARK-expired-2b8e")
        let revoking = MarkedCard(name: "Di Revoked", marker: "MARK-revoked-9f41")
        let expired = try bench.share(expiring, ttl: "1m")
        let revoked = try bench.share(revoking)
        let unknown = "6f1c2a9e-58b4-4d9a-9f0e-2b7c1d3e4f50"
        let unknownLink = "https://cards.example.com/appclip?id=\(unknown)"
        let revocation = try bench.main(at: Self.halfMinuteLater).run("share", "revoke", revoked.id)
        #expect(revocation.succeeded, "\(revocation.error)")
        // The main store and its server, like the clips, two minutes after the shares were made.
        let server = try bench.serve(at: Self.twoMinutesLater)

        let expiredClip = bench.clip("expired", at: Self.twoMinutesLater)
        let expiredAnswer = try expiredClip.run("--json", "clip", "open", expired.link, "--connect", server)
        #expect(expiredAnswer.status == 4, "\(expiredAnswer.error)")
        #expect(expiredAnswer.json["status"] as? String == "expired")
        #expect(expiredAnswer.json["reason"] as? String == "ttl")
        #expect(expiredAnswer.json["expiredAt"] as? String == "2026-12-01T10:01:00.000Z")
        #expect(expiredAnswer.json["preview"] == nil)

        let revokedClip = bench.clip("revoked", at: Self.twoMinutesLater)
        let revokedAnswer = try revokedClip.run("clip", "open", revoked.link, "--connect", server)
        #expect(revokedAnswer.status == 4, "\(revokedAnswer.error)")
        #expect(revokedAnswer.text.contains("status:   expired"), "\(revokedAnswer.text)")
        #expect(revokedAnswer.text.contains("expired:  2026-12-01T10:00:30.000Z (revoked)"), "\(revokedAnswer.text)")

        let unknownClip = bench.clip("unknown", at: Self.twoMinutesLater)
        let unknownAnswer = try unknownClip.run("clip", "open", unknownLink, "--connect", server)
        #expect(unknownAnswer.status == 3, "\(unknownAnswer.error)")
        // The clip asked the server: the answer says the server does not know it.
        #expect(
            unknownAnswer.error == "sharelog: the server does not know share \(unknown): check the link, or ask its owner to share the card again\n")
        #expect(unknownAnswer.text.isEmpty)
        // Its store (a sync session needs one) holds nothing of it.
        #expect(try unknownClip.eventCount() == 0)

        // Not a byte of either card in any clip's files, nor in what it printed.
        for clip in [expiredClip, revokedClip] {
            for card in [expiring, revoking] {
                #expect(try ClipBench.files(holding: card.marker, in: clip.store) == [], "\(card.marker) in \(clip.store)")
            }
        }
        for answer in [expiredAnswer, revokedAnswer, unknownAnswer] {
            #expect(!answer.text.contains("MARK-") && !answer.error.contains("MARK-"))
        }
        // The tombstones: the expired share's creation without its card
        // (main never swept it, so no end is logged yet); the revoked
        // one's creation without its card and its revocation; nothing for
        // the unknown one (above).
        let expiredLog = try expiredClip.run("log", "--json").checked("log (expired clip)").jsonLines
        #expect(expiredLog.map(Self.summary) == ["shareCreated \(expired.id) redacted"])
        let revokedLog = try revokedClip.run("log", "--json").checked("log (revoked clip)").jsonLines
        #expect(revokedLog.map(Self.summary) == ["shareCreated \(revoked.id) redacted", "shareExpired \(revoked.id) revoked"])
    }

    /// A share that has expired by the clip's clock but not yet by the
    /// server's (its clock lags by a minute and a half) comes with its card,
    /// and the clip still keeps none of it: it answers `expired` and its
    /// files hold only the tombstone, the creation without its card and the
    /// share's TTL end.
    @Test func aShareExpiredByTheClipsClockLeavesNoCardWhenTheServerLags() throws {
        let bench = try ClipBench("skew")
        let card = MarkedCard(name: "Ray Skewed", marker: "MARK-skew-4e90")
        let share = try bench.share(card, ttl: "1m")
        let server = try bench.serve(at: Self.halfMinuteLater)
        let clip = bench.clip("clip", at: Self.twoMinutesLater)
        let answer = try clip.run("--json", "clip", "open", share.link, "--connect", server)
        #expect(answer.status == 4, "\(answer.error)")
        #expect(answer.json["status"] as? String == "expired")
        #expect(answer.json["expiredAt"] as? String == "2026-12-01T10:01:00.000Z")
        #expect(try ClipBench.files(holding: card.marker, in: clip.store) == [])
        let log = try clip.run("log", "--json").checked("log (clip)").jsonLines
        #expect(log.map(Self.summary) == ["shareCreated \(share.id) redacted", "shareExpired \(share.id) ttl"])
    }

    /// One line of `log --json` in short: its kind and share, and whether
    /// the creation holds its card or why the share ended.
    static func summary(_ line: [String: Any]) -> String {
        let kind = line["kind"] as? String ?? "?"
        let id = line["id"] as? String ?? "?"
        switch kind {
        case "shareCreated":
            let redacted = line["redacted"] as? Bool == true && line["vCardBytes"] as? Int == 0
            return "\(kind) \(id) \(redacted ? "redacted" : "with its card of \(line["vCardBytes"] ?? "?") bytes")"
        case "shareExpired": return "\(kind) \(id) \(line["reason"] as? String ?? "?")"
        default: return "\(kind) \(id)"
        }
    }
}
