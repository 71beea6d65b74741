import Foundation
import Glibc
import Testing
import TestSupport

/// Issue 29's "Done means", with real processes: a commit made by another
/// process reaches a follower through the store's commit signal. Every
/// `serve` and follower here has a heartbeat of an hour, which is also how
/// often the server would read the log's end without a signal, so a share
/// that arrives within the tests' deadlines came through the signal.
extension SyncIntegrationTests {
    /// The timings that leave the signal as the only way in time.
    static let hourHeartbeat = ["--heartbeat", "3600", "--peer-timeout", "7200"]

    /// Starts `serve` on `main` at `socket`, and a follower of it on
    /// `replica`, with an hour's heartbeat; waits until the follower has
    /// `first`.
    static func follow(
        _ main: SharelogCLI, at socket: String, into replica: SharelogCLI, first: (id: String, card: [UInt8])
    ) throws -> (server: ServeProcess, follower: Subprocess) {
        let server = try ServeProcess(main, socket: socket, extra: hourHeartbeat)
        let follower = try replica.start(["sync", "--connect", server.endpoint, "--follow"] + hourHeartbeat)
        _ = try waitForShare(first.id, card: first.card, on: replica, within: .seconds(60), follower)
        return (server, follower)
    }

    /// A new main store with one share, served with an hour's heartbeat,
    /// and a replica that follows it and already has that share.
    static func followedMain(_ label: String) throws -> (main: SharelogCLI, replica: SharelogCLI, server: ServeProcess, follower: Subprocess, directory: TemporaryDirectory) {
        let directory = TemporaryDirectory(label)
        let main = SharelogCLI(store: directory.appending("main"), now: now)
        let replica = SharelogCLI(store: directory.appending("replica"), now: now)
        #expect(try main.run("init").succeeded)
        let first = TestCard.make("Main", 0)
        let (server, follower) = try follow(main, at: directory.appending("s.sock"), into: replica, first: (try createShare(main, first), first))
        return (main, replica, server, follower, directory)
    }

    @Test func sharesCreatedByAnotherProcessReachAFollowerThroughTheSignal() throws {
        let (main, replica, server, follower, directory) = try Self.followedMain("signal-follow")
        defer {
            follower.kill()
            _ = try? server.stop()
            withExtendedLifetime(directory) {}
        }

        for index in 1...5 {
            let card = TestCard.make("Main", index)
            let start = ContinuousClock.now
            let id = try Self.createShare(main, card)
            let delay = try Self.waitForShare(id, card: card, on: replica, within: .seconds(60), follower, since: start)
            print("follow delay: \(delay.milliseconds) ms (share \(index) created by another process)")
        }
    }

    /// A waiter (a `serve` whose follower waits on it) and writers killed
    /// with SIGKILL, some of them while they commit and signal, leave the
    /// other server, its follower and the next writer working.
    @Test func waitersAndWritersKilledWithSIGKILLLeaveTheOthersWorking() throws {
        let directory = TemporaryDirectory("signal-kills")
        let main = SharelogCLI(store: directory.appending("main"), now: Self.now)
        let replicas = ["a", "b"].map { SharelogCLI(store: directory.appending("replica-\($0)"), now: Self.now) }
        #expect(try main.run("init").succeeded)
        let first = TestCard.make("Main", 0)
        let firstID = try Self.createShare(main, first)
        let (doomed, doomedFollower) = try Self.follow(main, at: directory.appending("a.sock"), into: replicas[0], first: (firstID, first))
        defer { doomedFollower.kill() }
        let (server, follower) = try Self.follow(main, at: directory.appending("b.sock"), into: replicas[1], first: (firstID, first))
        defer {
            follower.kill()
            _ = try? server.stop()
        }

        try doomed.kill()
        let cardFile = directory.appending("card.vcf")
        try Data(TestCard.make("Killed", 1)).write(to: URL(fileURLWithPath: cardFile))
        for round in 0..<8 {
            let writer = try main.start(["share", "create", cardFile])
            usleep(useconds_t(round * 4_000))
            writer.kill()
            _ = try writer.finish(timeout: .seconds(30))
        }

        let last = TestCard.make("Main", 9)
        let lastID = try Self.createShare(main, last)
        _ = try Self.waitForShare(lastID, card: last, on: replicas[1], within: .seconds(60), follower)
        // Every share a killed writer committed came too.
        #expect(Set(try replicas[1].logIDs()) == Set(try main.logIDs()))
        #expect(try server.stop().succeeded)
    }

    @Test func aThousandCommitsFromFourWriterProcessesAllReachAFollower() throws {
        let (main, replica, server, follower, directory) = try Self.followedMain("signal-writers")
        defer {
            follower.kill()
            _ = try? server.stop()
        }

        let commits = 1_000
        let files = try (0..<10).map { index in
            let file = directory.appending("card-\(index).vcf")
            try Data(TestCard.make("Writer", index)).write(to: URL(fileURLWithPath: file))
            return file
        }
        let results = try SharelogCLI.runAll((0..<commits).map { (main, ["share", "create", files[$0 % files.count]]) }, lanes: 4)
        let failed = results.filter { !$0.succeeded }
        #expect(failed.isEmpty, "\(failed.count) writers failed; the first said: \(failed.first?.error ?? "")")

        let expected = commits + 1
        try Deadline.block(until: "the follower holds all \(expected) events", timeout: .seconds(120), every: .milliseconds(50)) {
            _ = follower.readOutput(waitingAtMost: 0)
            guard follower.isRunning else {
                throw HarnessFailure.endedEarly("the follower", before: "it brought every event", log: String(decoding: follower.errorOutput, as: UTF8.self))
            }
            return try replica.eventCount() == expected
        }
        #expect(Set(try replica.logIDs()) == Set(try main.logIDs()))
    }
}
