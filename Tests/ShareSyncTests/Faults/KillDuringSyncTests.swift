import Foundation
import Testing
import TestSupport
import TestTraits

/// kill -9 during a long pull, 20 times, of the receiving process and
/// then of the sending one, each time followed by a restart; in the end
/// the follower holds every event of main exactly once, `verify` passes
/// and its cursor is main's last position (issue 12, "Done means").
///
/// A pull that ends before its kill point counts as no kill: the loop
/// goes on until 20 kills have hit a pull in progress.
@Suite(.serialized, .hangDeadline) struct KillDuringSyncTests {
    static let kills = 20
    /// How many pulls may end before their kill point: the kill points are
    /// chosen to fall inside the pull, so more means they are not.
    static let endedFirstLimit = 20

    @Test func killingTheReceivingProcessLosesAndRepeatsNothing() throws {
        var generator = SeededGenerator(seed: KillBench.seed("receiver"))
        let bench = try KillBench()
        try bench.calibrate()
        var kills = 0, endedFirst = 0
        while kills < Self.kills {
            try #require(endedFirst <= Self.endedFirstLimit, "\(endedFirst) pulls ended before their kill point; \(bench.progress)")
            let delay = try bench.killPoint(killsLeft: Self.kills - kills, using: &generator)
            let sync = try bench.follower.start(bench.pull)
            if try bench.wait(sync, until: delay, since: .now) { sync.kill() }
            let outcome = try sync.finish(timeout: .seconds(60))
            if outcome.signaled {
                #expect(outcome.status == SIGKILL)
                kills += 1
            } else {
                #expect(outcome.status == 0, "a pull that ended before its kill: \(String(decoding: outcome.error, as: UTF8.self))")
                endedFirst += 1
            }
        }
        print("KillDuringSyncTests receiver: \(kills) kills; \(endedFirst) pulls ended before their kill point; \(bench.progress)")
        let last = try bench.follower.run(arguments: bench.pull)
        #expect(last.status == 0, "the final pull: \(last.error)")
        try bench.expectFollowerComplete()
    }

    @Test func killingTheSendingProcessLosesAndRepeatsNothing() throws {
        var generator = SeededGenerator(seed: KillBench.seed("sender"))
        let bench = try KillBench()
        try bench.calibrate()
        var kills = 0, endedFirst = 0
        var said: [String: Int] = [:]
        while kills < Self.kills {
            try #require(endedFirst <= Self.endedFirstLimit, "\(endedFirst) pulls ended before their kill point; \(bench.progress)")
            let delay = try bench.killPoint(killsLeft: Self.kills - kills, using: &generator)
            let sync = try bench.follower.start(bench.pull)
            let killed = try bench.wait(sync, until: delay, since: .now)
            if killed { try bench.killServer() }
            // The new server starts only once this pull has ended, so it
            // cannot finish the pull the kill interrupted.
            let outcome = try sync.finish(timeout: .seconds(60))
            if killed { try bench.restartServer() }
            let error = Self.errorLine(outcome.error)
            if killed, outcome.status == 1, !outcome.signaled {
                kills += 1
                let cause = Self.causes.first { error.hasPrefix("sharelog: sync failed: ") && error.contains($0) }
                #expect(cause != nil, "the pull whose server was killed says: \(error)")
                said[cause ?? error, default: 0] += 1
            } else {
                // Done before the kill: it must have ended well.
                #expect(outcome.status == 0 && !outcome.signaled, "a pull that ended before its kill: \(error)")
                endedFirst += 1
            }
        }
        print("KillDuringSyncTests sender: \(kills) kills; \(endedFirst) pulls ended before their kill point; \(bench.progress)")
        print("KillDuringSyncTests sender: the killed pulls said \(said)")
        let last = try bench.follower.run(arguments: bench.pull)
        #expect(last.status == 0, "the final pull: \(last.error)")
        try bench.expectFollowerComplete()
    }

    /// How a pull whose server died may explain it, depending on when.
    static let causes = [
        "the peer closed the connection before the session ended",
        "reset the connection",
        "closed the connection early",
        "nothing accepts connections at",
    ]

    /// The error a `--json` pull printed, as its text line reads:
    /// `sharelog: ` and the JSON error's message (docs/CLI.md, "Exit codes").
    static func errorLine(_ bytes: [UInt8]) -> String {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
            let message = object["message"] as? String
        else { return text }
        return "sharelog: " + message
    }
}
