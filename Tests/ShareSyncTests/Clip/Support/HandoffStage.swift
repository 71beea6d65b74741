import Foundation
import TestSupport

/// A clip store and a full app's store, ready for `handoff`: the clip
/// opened four shares of main while they were live, and by
/// `ClipLifecycleTests.twoMinutesLater`, the handoff's time, two are still
/// live (`adopted`), one has expired (`expired`, TTL one minute) and one
/// was revoked on main and the clip opened it again to learn so
/// (`revoked`). The app's store holds one share of its own. The server is
/// stopped: nothing but the two stores takes part in the handoff.
final class HandoffStage {
    let bench: ClipBench
    let clipPath: String
    let appPath: String
    let adoptedCards = [
        MarkedCard(name: "Lu Kept", marker: "MARK-handoff-kept-3a91"), MarkedCard(name: "Mo Kept", marker: "MARK-handoff-kept-c40e"),
    ]
    let expiredCard = MarkedCard(name: "Ned Brief", marker: "MARK-handoff-expired-77b2")
    let revokedCard = MarkedCard(name: "Oz Revoked", marker: "MARK-handoff-revoked-e5d8")
    let ownCard = MarkedCard(name: "Pat Own", marker: "MARK-handoff-own-2f16")
    /// The ids of the shares the app should adopt, in `adoptedCards` order.
    private(set) var adopted: [String] = []
    private(set) var expired = ""
    private(set) var revoked = ""
    /// The event ids (`origin:counter`) main logged for the adopted shares.
    private(set) var adoptedEventIDs: [String] = []
    /// The event ids of the app's own store before the handoff.
    private(set) var ownEventIDs: [String] = []

    init(_ label: String) throws {
        bench = try ClipBench(label)
        clipPath = bench.directory.appending("clip")
        appPath = bench.directory.appending("app")
        let shares = try adoptedCards.map { try bench.share($0) }
        adopted = shares.map(\.id)
        let expiredShare = try bench.share(expiredCard, ttl: "1m")
        let revokedShare = try bench.share(revokedCard)
        expired = expiredShare.id
        revoked = revokedShare.id

        var server = try bench.serve(at: ClipLifecycleTests.halfMinuteLater)
        let clip = SharelogCLI(store: clipPath, now: ClipLifecycleTests.halfMinuteLater)
        for share in shares + [expiredShare, revokedShare] {
            _ = try clip.run("clip", "open", share.link, "--connect", server).checked("sharelog clip open \(share.id)")
        }
        _ = try bench.main(at: "2026-12-01T10:01:00Z").run("share", "revoke", revoked).checked("sharelog share revoke")
        server = try bench.serve(at: "2026-12-01T10:01:30Z")
        let relearned = try SharelogCLI(store: clipPath, now: "2026-12-01T10:01:30Z")
            .run("clip", "open", revokedShare.link, "--connect", server)
        guard relearned.status == 4 else {
            throw HarnessFailure.failed("sharelog clip open (revoked)", status: relearned.status, log: relearned.error)
        }
        try bench.stopServer()

        let mainLog = try bench.main(at: ClipLifecycleTests.created).run("log", "--json").checked("sharelog log (main)").jsonLines
        adoptedEventIDs = mainLog.filter { adopted.contains($0["id"] as? String ?? "") }.map(Self.eventID)
        guard adoptedEventIDs.count == 2 else { throw HarnessFailure.unexpected("main logged \(adoptedEventIDs) for \(adopted)") }

        let app = SharelogCLI(store: appPath, now: ClipLifecycleTests.created)
        _ = try app.run("init").checked("sharelog init (app)")
        _ = try app.run("share", "create", "-", input: ownCard.bytes).checked("sharelog share create (app)")
        ownEventIDs = try app.logIDs()
    }

    /// The event ids the app's store must hold after the handoff, each
    /// once, sorted: its own and main's events of the adopted shares.
    var expectedAppEventIDs: [String] { (ownEventIDs + adoptedEventIDs).sorted() }

    /// `origin:counter` of one line of `log --json`, as `SharelogCLI.logIDs` writes it.
    static func eventID(_ line: [String: Any]) -> String {
        "\(line["origin"] as? String ?? "?"):\(line["originCounter"] as? Int ?? -1)"
    }
}
