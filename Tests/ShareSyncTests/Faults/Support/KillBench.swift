import Foundation
import Testing
import TestSupport

/// A large main store served over a Unix socket, a follower that pulls
/// from it, and the pieces of a kill -9 test: the expected duration of a
/// pull, random kill points, and the final checks.
final class KillBench {
    /// Shares in the main store: one event each, at log positions 1…shares.
    static let shares = 20_000
    /// Each card carries a photo this large, so a batch holds a few
    /// hundred events and a pull takes many batches.
    static let photoBytes = 1_500

    let directory = TemporaryDirectory("kill")
    let main: SharelogCLI
    let follower: SharelogCLI
    let socket: String
    private(set) var server: ServeProcess
    /// How long a pull of the whole store takes, and one of nothing (the
    /// cost of starting a process and shaking hands), measured once.
    private(set) var fullPull: Duration = .zero
    private(set) var emptyPull: Duration = .zero
    /// The events the follower held before each pull.
    private var heldBeforePulls: [Int] = []

    init() throws {
        main = .forFaults(store: directory.appending("main"))
        follower = .forFaults(store: directory.appending("follower"))
        socket = directory.appending("s")
        _ = try SeedStore.build(at: main.store, sampleCards: Self.shares, photoBytes: Self.photoBytes)
        server = try ServeProcess(main, socket: socket)
    }

    /// Stops the server before `directory`, which holds its store, goes.
    deinit { _ = try? server.stop() }

    /// The arguments of a follower's pull.
    var pull: [String] { ["sync", "--connect", "unix:\(socket)", "--pull", "--json"] }

    /// Measures `fullPull` and `emptyPull` with a scratch store that then
    /// goes away.
    func calibrate() throws {
        let scratch = SharelogCLI.forFaults(store: directory.appending("scratch"))
        for round in 0..<2 {
            let start = ContinuousClock.now
            _ = try scratch.run(arguments: pull).checked("sharelog sync (calibration)")
            if round == 0 { fullPull = ContinuousClock.now - start } else { emptyPull = ContinuousClock.now - start }
        }
        try FileManager.default.removeItem(atPath: scratch.store)
        print("KillBench: a full pull of \(Self.shares) events takes \(fullPull), an empty one \(emptyPull)")
    }

    /// A random moment in the follower's next pull, `killsLeft` kills
    /// before the end: uniform in twice its share of the expected time
    /// left (from `calibrate` and the events the follower already holds),
    /// so that the kills spread over the transfer and seldom come after
    /// the pull has ended.
    func killPoint(killsLeft: Int, using generator: inout SeededGenerator) throws -> Duration {
        let held = try followerEvents()
        heldBeforePulls.append(held)
        let left = emptyPull + fullPull * (Double(Self.shares - held) / Double(Self.shares))
        let window = left * (2.0 / Double(killsLeft + 1))
        let nanoseconds = Int64(window.components.seconds) * 1_000_000_000 + window.components.attoseconds / 1_000_000_000
        return .nanoseconds(Int64.random(in: 0...max(nanoseconds, 1), using: &generator))
    }

    /// The events the follower holds: none before a pull has created its
    /// store, or when the pull that was creating it was killed before the
    /// store was initialised (`stats` exits 3, no store; the next pull
    /// creates it).
    private func followerEvents() throws -> Int {
        if try follower.run("stats", "--json").status == 3 { return 0 }
        return try follower.eventCount()
    }

    /// Waits until `delay` has passed since `start`, or `process` has ended.
    /// True when it is still running then.
    func wait(_ process: Subprocess, until delay: Duration, since start: ContinuousClock.Instant) throws -> Bool {
        try Deadline.block(until: "the kill point, \(delay) into the pull", timeout: delay + .seconds(60)) {
            _ = process.readOutput(waitingAtMost: 0)
            return ContinuousClock.now - start >= delay || !process.isRunning
        }
        return process.isRunning
    }

    /// How far the follower had got before each pull, for the test's report.
    var progress: String { "the follower held \(heldBeforePulls) of \(Self.shares) events before each pull" }

    /// SIGKILLs the server, as a crash would.
    func killServer() throws { try server.kill() }

    /// Starts a new server on the same socket and store.
    func restartServer() throws {
        server = try ServeProcess(main, socket: socket)
    }

    /// The seed of a test's kill points: `SHARELOG_KILL_SEED` to replay a
    /// run, else a new one. Printed either way.
    static func seed(_ label: String) -> UInt64 {
        let seed = ProcessInfo.processInfo.environment["SHARELOG_KILL_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 0...UInt64.max)
        print("KillDuringSyncTests \(label): seed \(seed) (replay with SHARELOG_KILL_SEED=\(seed))")
        return seed
    }

    /// The follower holds every event of main, each once; `verify` passes
    /// on it; and its cursor for main sits at main's last position, which
    /// is `shares` (one event per share, positions from 1).
    func expectFollowerComplete(sourceLocation: SourceLocation = #_sourceLocation) throws {
        let mainIDs = try main.logIDs()
        let followerIDs = try follower.logIDs()
        #expect(mainIDs.count == Self.shares, sourceLocation: sourceLocation)
        #expect(followerIDs.count == Self.shares, "the follower holds \(followerIDs.count) events", sourceLocation: sourceLocation)
        #expect(Set(followerIDs).count == followerIDs.count, "an event id appears twice in the follower's log", sourceLocation: sourceLocation)
        let missing = Set(mainIDs).subtracting(followerIDs)
        #expect(missing.isEmpty, "the follower lacks \(missing.count) events of main, such as \(missing.prefix(3))", sourceLocation: sourceLocation)
        #expect(Set(followerIDs).subtracting(mainIDs).isEmpty, sourceLocation: sourceLocation)
        #expect(try follower.verify() == 0, "verify on the follower", sourceLocation: sourceLocation)
        #expect(try main.lastPosition() == UInt64(Self.shares), sourceLocation: sourceLocation)
        let peers = try follower.run("peers", "--json").jsonArray ?? []
        #expect(peers.count == 1, "the follower's cursors: \(peers)", sourceLocation: sourceLocation)
        #expect(peers.first?["peer"] as? String == (try main.replicaID()), sourceLocation: sourceLocation)
        #expect(peers.first?["position"] as? Int == Self.shares, "the follower's cursor: \(peers)", sourceLocation: sourceLocation)
    }
}
