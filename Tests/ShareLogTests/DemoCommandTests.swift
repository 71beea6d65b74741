import Foundation
import SampleCards
import Testing
import TestSupport
import TestTraits

/// `sharelog demo`, the main job of `Scripts/demo`: every step's outcome,
/// read from its `--json` report and checked again afterwards with other
/// commands on the stores it left, each its own process. Outcomes only,
/// never timings. The expected values follow from the demo's arguments
/// (20 shares, a photo on every fifth) and `--now`, written out by hand.
@Suite(.hangDeadline) struct DemoCommandTests {
    static let now = "2026-12-01T10:00:00Z"
    static let eightDaysOn = "2026-12-09T10:00:00.000Z"

    /// Runs the demo in `folder` with 20 shares, a photo on every fifth.
    static func demo(in folder: String, _ dir: TemporaryDirectory) throws -> CLI.Result {
        try CLI(store: dir.appending("unused"), now: now).run("demo", "--dir", folder, "--shares", "20", "--photo-every", "5", "--json")
    }

    @Test func everyStepOfTheDemoDoesWhatItSays() throws {
        let dir = TemporaryDirectory("demo")
        let folder = dir.appending("demo")
        let demo = try Self.demo(in: folder, dir)
        #expect(demo.status == 0, "\(demo.error)")
        let report = demo.json
        #expect(report["failure"] == nil)
        #expect(report["folder"] as? String == folder)
        let steps = try #require(report["steps"] as? [[String: Any]])
        #expect(steps.map { $0["number"] as? Int } == Array(1...9))

        // 1: the main app's shares.
        #expect(report["shares"] as? Int == 20)
        #expect(report["withPhotos"] as? Int == 4)
        // 4: the clip's preview of share 0, fetched over HTTP from the
        // gateway of step 3, and its card for Contacts, byte for byte.
        let clip = try #require(report["clip"] as? [String: Any])
        let gateway = try #require(report["gateway"] as? String)
        #expect(gateway.hasPrefix("http://127.0.0.1:"))
        #expect(report["fallbackPage"] as? String == "\(gateway)/appclip?id=\(clip["id"] as? String ?? "?")")
        #expect(clip["name"] as? String == "Person Sample0")
        #expect(clip["title"] as? String == "Engineer 0")
        #expect(clip["organization"] as? String == "Example Corp 0")
        #expect(clip["photoBytes"] as? Int == 45_000)
        let contact = try Data(contentsOf: URL(fileURLWithPath: (folder as NSString).appendingPathComponent("contact.vcf")))
        #expect([UInt8](contact) == SampleCard.make(index: 0, photoBytes: 45_000))
        // 5: the follower caught up every creation.
        #expect(report["followerCaughtUp"] as? Int == 20)
        // 6: eight days on, the server's own maintenance expired everything
        // and purged every card, and its log and its metrics say so.
        let expiry = try #require(report["expiry"] as? [String: Any])
        #expect(expiry["now"] as? String == Self.eightDaysOn)
        #expect(expiry["expired"] as? Int == 20)
        #expect(expiry["redacted"] as? Int == 20)
        #expect(report["metricsLine"] as? String == "sharelog_maintenance_items_total{item=\"expired\"} 20")
        let serverLog = try String(contentsOfFile: (folder as NSString).appendingPathComponent("logs/serve.log"), encoding: .utf8)
        #expect(serverLog.contains("sharelog: maintenance at \(Self.eightDaysOn): expired 20 shares; redacted 20 cards"))
        // 7: the clip and the follower see it.
        #expect(report["clipStatusAfterExpiry"] as? String == "expired")
        #expect(report["followerExpired"] as? Int == 20)
        // 8: the full app adopted the one live share the clip held.
        let handoff = try #require(report["handoff"] as? [String: Any])
        #expect(handoff["sharesAdopted"] as? Int == 1)
        #expect(handoff["sharesEnded"] as? Int == 1)
        // 9: every store verified.
        #expect(report["verified"] as? [String: Bool] == ["main": true, "follower": true, "clip": true, "app": true])

        // What the stores hold, asked of each by its own process.
        let store = { (name: String) in CLI(store: (folder as NSString).appendingPathComponent(name), now: Self.eightDaysOn) }
        let main = try store("main").run("stats", "--json").json
        #expect(main["events"] as? Int == 41, "20 creations, 20 expiries and the share made after the sweep")
        #expect(main["live"] as? Int == 1)
        #expect(main["expired"] as? Int == 20)
        #expect(main["pendingRedactions"] as? Int == 0)
        let clipID = try #require(clip["id"] as? String)
        #expect(try store("follower").run("share", "get", clipID).status == 4)
        #expect(try store("follower").run("stats", "--json").json["expired"] as? Int == 20)
        let onClip = try store("clip").run("share", "get", clipID, "--json")
        #expect(onClip.status == 4)
        #expect(onClip.json["status"] as? String == "expired")
        #expect(try store("clip").run("stats", "--json").json["pendingRedactions"] as? Int == 0, "no card of an expired share left on the clip")
        let newShare = try #require(handoff["newShare"] as? String)
        let onApp = try store("app").run("share", "get", newShare, "--json")
        #expect(onApp.status == 0)
        #expect((onApp.json["preview"] as? [String: Any])?["name"] as? String == "Person Sample20")
        for name in ["main", "follower", "clip", "app"] { #expect(try store(name).run("verify").status == 0, "verify \(name)") }

        #expect(Self.processes(naming: folder) == [], "every process the demo started has stopped")
    }

    @Test func aSecondRunStartsCleanInTheSameFolder() throws {
        let dir = TemporaryDirectory("demo")
        let folder = dir.appending("demo")
        #expect(try Self.demo(in: folder, dir).status == 0)
        let again = try Self.demo(in: folder, dir)
        #expect(again.status == 0, "\(again.error)")
        #expect(again.json["followerCaughtUp"] as? Int == 20)
        let main = CLI(store: (folder as NSString).appendingPathComponent("main"), now: Self.eightDaysOn)
        #expect(try main.run("stats", "--json").json["events"] as? Int == 41, "the first run's store is gone")
        #expect(Self.processes(naming: folder) == [])
    }

    @Test func aProcessThatAKilledRunLeftBehindIsStoppedByTheNext() throws {
        let dir = TemporaryDirectory("demo")
        let folder = dir.appending("demo")
        #expect(try Self.demo(in: folder, dir).status == 0)
        // What a run killed with SIGKILL leaves: a child still running,
        // its pid in the marker, its command line naming the folder.
        let leftover = try Subprocess("/bin/sh", ["-c", "sleep 120", folder], environment: [:])
        let marker = try FileHandle(forWritingTo: URL(fileURLWithPath: (folder as NSString).appendingPathComponent(".sharelog-demo")))
        try marker.seekToEnd()
        try marker.write(contentsOf: Data("\(leftover.pid)\n".utf8))
        try marker.close()
        #expect(try Self.demo(in: folder, dir).status == 0)
        try Deadline.block(until: "the leftover process ends", timeout: .seconds(10), every: .milliseconds(10)) { !leftover.isRunning }
        #expect(leftover.termination?.signaled == true)
        #expect(leftover.termination?.status == SIGKILL)
    }

    @Test func aFolderTheDemoDidNotMakeIsRefusedAndLeftAlone() throws {
        let dir = TemporaryDirectory("demo")
        let folder = dir.appending("mine")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let file = (folder as NSString).appendingPathComponent("notes.txt")
        #expect(FileManager.default.createFile(atPath: file, contents: Data("keep me\n".utf8)))
        let demo = try Self.demo(in: folder, dir)
        #expect(demo.status == 5)
        #expect(demo.error.contains("holds files that no demo made"), "\(demo.error)")
        #expect(demo.output == "")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["notes.txt"])
        #expect(FileManager.default.contents(atPath: file) == Data("keep me\n".utf8))
    }

    @Test func theTextSummaryListsEveryStepAndWhereTheStoresAre() throws {
        let dir = TemporaryDirectory("demo")
        let folder = dir.appending("demo")
        let demo = try CLI(store: dir.appending("unused"), now: Self.now).run("demo", "--dir", folder, "--shares", "3")
        #expect(demo.status == 0, "\(demo.error)")
        let lines = demo.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "demo folder: \(folder)")
        for number in 1...9 { #expect(lines.contains { $0.hasPrefix("[\(number)/9] ") }, "progress of step \(number)") }
        let summary = try #require(lines.firstIndex(of: "Summary"))
        let rows = lines[summary...].filter { $0.hasPrefix(" ") && $0.hasSuffix(" ms") }
        #expect(rows.count == 9)
        #expect(lines.contains { $0.hasPrefix("The fallback page a browser shows for the clip's share") && $0.contains("/appclip?id=") })
        for name in ["main", "follower", "clip", "app"] {
            #expect(lines.contains { $0.hasPrefix(name) && $0.hasSuffix("\(folder)/\(name)") }, "where \(name) is")
        }
    }

    @Test func aFolderTooLongForTheServersSocketIsRefusedBeforeAnythingIsMade() throws {
        let dir = TemporaryDirectory("demo")
        let folder = dir.appending(String(repeating: "d", count: 120))
        let demo = try Self.demo(in: folder, dir)
        #expect(demo.status == 5)
        #expect(demo.error.contains("a Unix socket path may have 107"), "\(demo.error)")
        #expect(!FileManager.default.fileExists(atPath: folder))
    }

    /// The processes whose command line names `folder`.
    static func processes(naming folder: String) -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { pid in
            guard pid.allSatisfy(\.isNumber), let bytes = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return nil }
            let line = String(decoding: bytes.map { $0 == 0 ? 32 : $0 }, as: UTF8.self)
            return line.contains(folder) ? "\(pid): \(line)" : nil
        }
    }
}
