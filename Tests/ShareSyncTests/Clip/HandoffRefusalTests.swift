import Foundation
import Testing
import TestSupport
import TestTraits

/// Issue 28, items 1 and 2: `handoff` takes only a clip's store, never
/// makes the full app's store unasked, and hands a clip off to one store
/// only. Every refusal exits with the documented code and message and
/// writes nothing: both stores' `data.mdb` and `high-water` are the same
/// to the byte before and after, and no store is made.
///
/// Every process runs at a `--now` the test names. Serialized, for a
/// two-core machine.
@Suite(.serialized, .hangDeadline) struct HandoffRefusalTests {
    static let created = ClipLifecycleTests.created
    static let halfMinuteLater = ClipLifecycleTests.halfMinuteLater
    static let twoMinutesLater = ClipLifecycleTests.twoMinutesLater
    static let threeMinutesLater = "2026-12-01T10:03:00Z"
    /// The advice every "not a clip's store" refusal ends with.
    static let keepIt = "nothing was written; hand off only the store a clip showed its shares from ('clip open'), and keep this one"

    /// A main store (it made shares and revoked one), a main replica that
    /// pulled from it (`sync`, nothing of its own) and a store that fetched
    /// one share as a clip without `clip open` (`sync --role clip`) are not
    /// a clip's stores: `handoff --from` each exits 5 with the reason,
    /// writes nothing to it or to the app's store, and adopts nothing. On
    /// the build before the fix, `handoff --from` the main store adopted
    /// its live share and said the main store "may now be deleted".
    @Test func aStoreThatIsNotAClipsIsRefusedAndNothingIsWritten() throws {
        let bench = try ClipBench("handoff-notclip")
        let kept = MarkedCard(name: "Kit Main", marker: "MARK-notclip-kept-51e0")
        let share = try bench.share(kept)
        let revoked = try bench.share(MarkedCard(name: "Rae Main", marker: "MARK-notclip-revoked-9b3c"))
        _ = try bench.main(at: "2026-12-01T10:01:00Z").run("share", "revoke", revoked.id).checked("sharelog share revoke")
        let server = try bench.serve(at: "2026-12-01T10:01:30Z")
        let follower = bench.clip("follower", at: "2026-12-01T10:01:30Z")
        _ = try follower.run("sync", "--connect", server).checked("sharelog sync (follower)")
        let fetched = bench.clip("fetched", at: "2026-12-01T10:01:30Z")
        _ = try fetched.run("sync", "--connect", server, "--role", "clip", "--only", share.id).checked("sharelog sync --role clip")
        try bench.stopServer()
        let app = bench.clip("app", at: Self.created)
        _ = try app.run("init").checked("sharelog init (app)")

        let refused = [
            (bench.mainPath, "it made 3 events of its own (shares created or revoked there), which a handoff would leave behind"),
            (follower.store, "it synced with a peer as a main replica"),
            (fetched.store, "'clip open' never showed a share from it, so it may hold what no other store has"),
        ]
        for (store, reason) in refused {
            let fromBefore = try StoreFiles(of: store), appBefore = try StoreFiles(of: app.store)
            let handoff = try SharelogCLI(store: app.store, now: Self.twoMinutesLater).run("handoff", "--from", store)
            #expect(handoff.status == 5, "\(store): \(handoff.text) \(handoff.error)")
            #expect(handoff.text == "", "\(store)")
            #expect(handoff.error == "sharelog: \(store) is not a clip's store: \(reason); \(Self.keepIt)\n")
            #expect(try StoreFiles(of: store) == fromBefore, "the refused handoff wrote to \(store)")
            #expect(try StoreFiles(of: app.store) == appBefore, "the refused handoff from \(store) wrote to the app's store")
        }
        // The same refusal as one JSON object, with --json.
        let json = try SharelogCLI(store: app.store, now: Self.twoMinutesLater).run("--json", "handoff", "--from", bench.mainPath)
        #expect(json.status == 5)
        let error = (try? JSONSerialization.jsonObject(with: Data(json.error.utf8))) as? [String: Any] ?? [:]
        #expect(error["code"] as? String == "invalidInput", "\(json.error)")
        #expect(error["exitCode"] as? Int == 5, "\(json.error)")
        #expect(try app.run("log", "--json").checked("log (app)").text == "", "the app adopted events")
        #expect(try app.run("share", "get", share.id).status == 3, "the app adopted the main store's share")
    }

    /// Without `--create`, a handoff into a store that does not exist
    /// exits 3, names the store and how to make it, and makes nothing
    /// (on the build before the fix it made the store silently); the clip
    /// is untouched. With `--create` it makes the store and adopts the
    /// clip's live share. A `--from` that names no store exits 3 too.
    @Test func aHandoffMakesTheAppsStoreOnlyWithCreate() throws {
        let bench = try ClipBench("handoff-create")
        let card = MarkedCard(name: "Cy Created", marker: "MARK-create-live-7d24")
        let share = try bench.share(card)
        let server = try bench.serve(at: Self.halfMinuteLater)
        let clip = bench.clip("clip", at: Self.halfMinuteLater)
        _ = try clip.run("clip", "open", share.link, "--connect", server).checked("sharelog clip open")
        try bench.stopServer()
        let app = bench.clip("app", at: Self.twoMinutesLater)
        let clipBefore = try StoreFiles(of: clip.store)

        let missing = try app.run("handoff", "--from", clip.store)
        #expect(missing.status == 3, "\(missing.text) \(missing.error)")
        #expect(missing.text == "")
        #expect(missing.error == "sharelog: no ShareLog store at \(app.store); run 'sharelog init' there, or give handoff --create to make it\n")
        #expect(!FileManager.default.fileExists(atPath: app.store), "the handoff made the app's store unasked")
        #expect(try StoreFiles(of: clip.store) == clipBefore, "the refused handoff wrote to the clip's store")

        let nowhere = bench.directory.appending("nowhere")
        let noClip = try app.run("handoff", "--from", nowhere, "--create")
        #expect(noClip.status == 3, "\(noClip.text) \(noClip.error)")
        #expect(noClip.error == "sharelog: no ShareLog store at \(nowhere), which --from names; give the clip's store\n")
        #expect(!FileManager.default.fileExists(atPath: app.store), "the handoff made the app's store for a missing clip store")
        #expect(!FileManager.default.fileExists(atPath: nowhere))

        let created = try app.run("handoff", "--from", clip.store, "--create")
        #expect(created.status == 0, "\(created.error)")
        #expect(created.text == """
            adopted 1 share from the clip (1 new event); 0 shares that had ended stayed behind
            the clip store \(clip.store) is marked as handed off; it may now be deleted

            """)
        let adopted = try app.run("share", "get", share.id, "--vcard")
        #expect(adopted.status == 0, "\(adopted.error)")
        #expect(adopted.output == card.bytes)
    }

    /// A clip handed off to one app store is refused by another: exit 5,
    /// naming the store it went to (its replica id) and when, with nothing
    /// written to either store; with `--create`, no store is made for it.
    /// The first store still finds the clip handed off to it. On the build
    /// before the fix, the second store adopted the clip's shares again.
    @Test func aClipHandedOffToOneStoreIsRefusedByAnother() throws {
        let stage = try HandoffStage("handoff-twice")
        let first = SharelogCLI(store: stage.appPath, now: Self.twoMinutesLater)
        _ = try first.run("handoff", "--from", stage.clipPath).checked("sharelog handoff (first app)")
        let firstReplica = try first.replicaID()
        let second = stage.bench.clip("second", at: Self.threeMinutesLater)
        _ = try second.run("init").checked("sharelog init (second app)")
        let before = (clip: try StoreFiles(of: stage.clipPath), second: try StoreFiles(of: second.store))
        let expected = "sharelog: the clip store \(stage.clipPath) was handed off at 2026-12-01T10:02:00.000Z to another store, "
            + "replica \(firstReplica), which holds its live shares; nothing was written; a clip is handed off to one store only: "
            + "run the handoff on that store (it does nothing there), or sync this store from a main replica\n"

        let again = try second.run("handoff", "--from", stage.clipPath)
        #expect(again.status == 5, "\(again.text) \(again.error)")
        #expect(again.text == "")
        #expect(again.error == expected)
        #expect(try StoreFiles(of: stage.clipPath) == before.clip, "the refused handoff wrote to the clip's store")
        #expect(try StoreFiles(of: second.store) == before.second, "the refused handoff wrote to the second app's store")
        #expect(try second.run("log", "--json").checked("log (second app)").text == "", "the second app adopted events")
        for id in stage.adopted {
            #expect(try second.run("share", "get", id).status == 3, "the second app adopted \(id)")
        }

        let third = stage.bench.clip("third", at: Self.threeMinutesLater)
        let created = try third.run("handoff", "--from", stage.clipPath, "--create")
        #expect(created.status == 5, "\(created.text) \(created.error)")
        #expect(created.error == expected)
        #expect(!FileManager.default.fileExists(atPath: third.store), "a refused handoff made the third app's store")
        #expect(try StoreFiles(of: stage.clipPath) == before.clip, "the refused handoff wrote to the clip's store")

        let json = try second.run("--json", "handoff", "--from", stage.clipPath)
        #expect(json.status == 5)
        let error = (try? JSONSerialization.jsonObject(with: Data(json.error.utf8))) as? [String: Any] ?? [:]
        #expect(error["code"] as? String == "invalidInput", "\(json.error)")

        let back = try SharelogCLI(store: stage.appPath, now: Self.threeMinutesLater).run("--json", "handoff", "--from", stage.clipPath)
        #expect(back.status == 0, "\(back.error)")
        #expect(back.json["alreadyHandedOffAt"] as? String == "2026-12-01T10:02:00.000Z")
        #expect(back.json["sharesAdopted"] as? Int == 0)
    }
}
