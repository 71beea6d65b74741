import Foundation
import Testing
import TestSupport

extension ClipLifecycleTests {
    /// With the server stopped, a clip that holds the share answers from
    /// its own store, live, card and all, and says on standard error that
    /// it did; a clip that never held it fails (exit 1), saying it could
    /// not reach the server and has never held that share.
    @Test func withTheServerStoppedAClipAnswersOnlyWhatItHolds() throws {
        let bench = try ClipBench("offline")
        let card = MarkedCard(name: "Eve Offline", marker: "MARK-offline-41c3")
        let share = try bench.share(card)
        let server = try bench.serve(at: Self.halfMinuteLater)
        let holder = bench.clip("holder", at: Self.halfMinuteLater)
        let first = try holder.run("clip", "open", share.link, "--connect", server)
        #expect(first.status == 0, "\(first.error)")
        #expect(!first.error.contains("unreachable"), "\(first.error)")
        try bench.stopServer()

        let offline = try holder.run("--json", "clip", "open", share.link, "--connect", server)
        #expect(offline.status == 0, "\(offline.error)")
        #expect(offline.json["status"] as? String == "live")
        #expect((offline.json["preview"] as? [String: Any])?["name"] as? String == "Eve Offline")
        #expect(offline.json["source"] as? String == "clipStoreOffline")
        #expect(offline.error.contains("the server is unreachable"), "\(offline.error)")
        #expect(offline.error.contains("answering from this clip's own store"), "\(offline.error)")
        let rawCard = try holder.run("clip", "open", share.link, "--connect", server, "--vcard")
        #expect(rawCard.status == 0, "\(rawCard.error)")
        #expect(rawCard.output == card.bytes)
        #expect(rawCard.error.contains("answering from this clip's own store"), "\(rawCard.error)")

        let stranger = bench.clip("stranger", at: Self.halfMinuteLater)
        let failed = try stranger.run("clip", "open", share.link, "--connect", server)
        #expect(failed.status == 1, "\(failed.error)")
        #expect(failed.text.isEmpty)
        #expect(failed.error.contains("cannot fetch share \(share.id)"), "\(failed.error)")
        #expect(failed.error.contains("this clip has never held it"), "\(failed.error)")
        // Nothing at all: the store the failed open made is removed again.
        #expect(!FileManager.default.fileExists(atPath: stranger.store))
    }
}
