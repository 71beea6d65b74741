import Foundation
import Glibc
import Testing
import TestSupport

extension SyncIntegrationTests {
    /// A follower (`sync --follow`) sees a share created on main: one that
    /// another client pushed into the server, through the server's own
    /// commit announcement, and one that `share create` wrote to the main
    /// store from another process, through the store's commit signal. It
    /// stops on SIGINT with status 0. The delays are printed, not asserted.
    ///
    /// The server ticks every 20 s, so the pushed share arriving within
    /// 10 s shows that no tick was needed (`CommitSignalFollowTests.swift`
    /// shows the same for other processes' commits, with an hour's tick). The follower's heartbeat is 1 s
    /// and its peer timeout 120 s: it never reconnects (a reconnect would
    /// pull the share without following).
    @Test func aFollowerSeesNewSharesWithoutAskingAgain() throws {
        let directory = TemporaryDirectory("follow")
        let main = SharelogCLI(store: directory.appending("main"), now: Self.now)
        let follower = SharelogCLI(store: directory.appending("follower"), now: Self.now)
        let other = SharelogCLI(store: directory.appending("other"), now: Self.now)
        #expect(try main.run("init").succeeded)
        #expect(try other.run("init").succeeded)
        let first = try Self.createShare(main, TestCard.make("Main", 0))

        let server = try ServeProcess(main, socket: directory.appending("s.sock"), extra: ["--heartbeat", "20"])
        defer { _ = try? server.stop() }
        let following = try follower.start(["sync", "--connect", server.endpoint, "--follow", "--heartbeat", "1", "--peer-timeout", "120"])
        defer { following.kill() }
        _ = try Self.waitForShare(first, card: TestCard.make("Main", 0), on: follower, within: .seconds(30), following)

        let pushed = TestCard.make("Other", 1)
        let pushedID = try Self.createShare(other, pushed)
        let pushStart = ContinuousClock.now
        let push = try other.run("sync", "--connect", server.endpoint, "--push", "--json")
        #expect(push.succeeded, "\(push.error)")
        let pushDelay = try Self.waitForShare(pushedID, card: pushed, on: follower, within: .seconds(10), following, since: pushStart)
        print("follow delay: \(pushDelay.milliseconds) ms (share pushed into the server by another client)")

        let direct = TestCard.make("Main", 2)
        let directStart = ContinuousClock.now
        let directID = try Self.createShare(main, direct)
        let directDelay = try Self.waitForShare(directID, card: direct, on: follower, within: .seconds(45), following, since: directStart)
        print("follow delay: \(directDelay.milliseconds) ms (share created on the main store by another process)")

        kill(following.pid, SIGINT)
        let ended = try following.finish(timeout: .seconds(20))
        #expect(ended.status == 0 && !ended.signaled, "\(String(decoding: ended.error, as: UTF8.self))")
        #expect(Set(try follower.run("log", "--json").jsonLines.compactMap { $0["id"] as? String }) == [first, pushedID, directID])
        #expect(try server.stop().succeeded)
    }

    /// `share create -` of `card` on `cli`'s store; the id it printed.
    static func createShare(_ cli: SharelogCLI, _ card: [UInt8]) throws -> String {
        let created = try cli.run("share", "create", "-", "--json", input: card)
        return try #require(created.json["id"] as? String, "\(created.error)")
    }

    /// Polls `share get ID --vcard` on `cli`'s store until it answers
    /// `card`, and returns the time since `start`. Throws at `within`, or
    /// when `running` (the process that should bring the share) has ended.
    static func waitForShare(
        _ id: String, card: [UInt8], on cli: SharelogCLI, within timeout: Duration, _ running: Subprocess,
        since start: ContinuousClock.Instant = .now
    ) throws -> Duration {
        try Deadline.block(until: "share \(id) is on \(cli.store)", timeout: timeout, every: .milliseconds(5)) {
            _ = running.readOutput(waitingAtMost: 0)
            guard running.isRunning else {
                let log = String(decoding: running.errorOutput, as: UTF8.self)
                throw HarnessFailure.endedEarly("the follower", before: "it brought share \(id)", log: log)
            }
            return try cli.run("share", "get", id, "--vcard").output == card
        }
        return ContinuousClock.now - start
    }
}
