import Foundation
import Glibc
import SampleCards
import Testing
import TestSupport

/// The client side of `NetworkFaultTests`: pulls in the client's
/// namespace until they converge, a follower across a partition, and the
/// checks of convergence against the seed.
struct NetworkFaultBench {
    let directory: TemporaryDirectory
    let lab: NetworkLab
    let server: ServeProcess
    let keyFile: String
    /// The seeded shares' record names, in seed order.
    let names: [String]

    /// A CLI on the client store `name`: `inNamespace` runs it in the
    /// client's namespace (for `sync`); otherwise it runs here (for reading
    /// the store, which needs no network).
    func client(_ name: String, inNamespace: Bool) -> SharelogCLI {
        let plain = SharelogCLI.forFaults(store: directory.appending(name))
        guard inNamespace else { return plain }
        return SharelogCLI(store: plain.store, now: plain.now, timeout: plain.timeout, launcher: lab.launcher(lab.clientNamespace))
    }

    /// The arguments of a client's sync with the server.
    func sync(_ extra: [String], timings: [String] = NetworkFaultTests.timings) -> [String] {
        ["sync", "--connect", server.endpoint, "--key-file", keyFile] + timings + extra
    }

    /// Pulls into a new client store `name` until it holds `expecting`
    /// events, one `sync --pull` after another (a pull that a fault ends
    /// early is run again), under a deadline; then checks it against the
    /// seed and the server. With `inOnePull`, the first pull must do it: a
    /// fault TCP rides out must not end the session. Returns the time to
    /// converge and the pulls it took.
    func pullConverges(
        into name: String, expecting events: Int, inOnePull: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> String {
        let syncing = client(name, inNamespace: true)
        let reading = client(name, inNamespace: false)
        let start = ContinuousClock.now
        var pulls = 0
        var failures: [String] = []
        try Deadline.block(until: "a pull into \(name) converges; failures: \(failures)", timeout: .seconds(90 + NetworkFaultTests.shares / 100), every: .milliseconds(100)) {
            pulls += 1
            let pulled = try syncing.run(arguments: sync(["--pull", "--json"], timings: NetworkFaultTests.pullTimings))
            if !pulled.succeeded { failures.append(String(pulled.error.suffix(300))) }
            guard pulled.succeeded else { return false }
            return try reading.eventCount() == events
        }
        let elapsed = ContinuousClock.now - start
        if inOnePull { #expect(failures == [], "pulls into \(name) that ended early", sourceLocation: sourceLocation) }
        try expectConverged(reading, events: events, sourceLocation: sourceLocation)
        return "converged in \(Self.milliseconds(elapsed)) ms, \(pulls) pull\(pulls == 1 ? "" : "s")"
            + (failures.isEmpty ? "" : " (\(failures.count) ended early, the last: \(failures.last ?? ""))")
    }

    /// A follower that holds the whole store follows the server; the
    /// network is cut, shares are made on the server, and the follower
    /// must not see them while cut; then it heals, and the follower must
    /// hold them all. Returns the time from the heal to convergence.
    func followerCatchesUpAfterPartition(main: SharelogCLI, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let name = "baseline"
        let reading = client(name, inNamespace: false)
        let follower = try client(name, inNamespace: true).start(sync(["--pull", "--follow"]))
        defer {
            if follower.isRunning { follower.kill() }
            _ = try? follower.finish(timeout: .seconds(30))
        }
        // One share made while connected, which the follower must get, shows it follows.
        try createShares(on: main, from: 50_000, count: 1)
        let before = NetworkFaultTests.shares + 1
        try Deadline.block(until: "the follower holds \(before) events before the partition", timeout: .seconds(30), every: .milliseconds(50)) {
            _ = follower.readOutput(waitingAtMost: 0)
            return try !follower.isRunning || reading.eventCount() == before
        }
        #expect(follower.isRunning, "the follower ended: \(String(decoding: follower.errorOutput, as: UTF8.self).suffix(500))", sourceLocation: sourceLocation)
        try lab.partition()
        try createShares(on: main, from: 50_001, count: NetworkFaultTests.sharesDuringPartition)
        // Long enough for both sides' peer timeouts (4 s) to end the session, and for reconnects to fail.
        Thread.sleep(forTimeInterval: 6)
        #expect(try reading.eventCount() == before, "the follower got events through the partition", sourceLocation: sourceLocation)
        let dropped = try lab.faultCounters()
        let healed = ContinuousClock.now
        try lab.clearFaults()
        let expected = before + NetworkFaultTests.sharesDuringPartition
        try Deadline.block(until: "the follower holds all \(expected) events after the heal", timeout: .seconds(60), every: .milliseconds(50)) {
            _ = follower.readOutput(waitingAtMost: 0)
            return try !follower.isRunning || reading.eventCount() == expected
        }
        let elapsed = ContinuousClock.now - healed
        #expect(follower.isRunning, "the follower ended: \(String(decoding: follower.errorOutput, as: UTF8.self).suffix(500))", sourceLocation: sourceLocation)
        try expectConverged(reading, events: expected, sourceLocation: sourceLocation)
        Glibc.kill(follower.pid, SIGINT)
        let ended = try follower.finish(timeout: .seconds(30))
        #expect(ended.status == 0 && !ended.signaled, "the follower after SIGINT: \(String(decoding: ended.error, as: UTF8.self).suffix(500))",
            sourceLocation: sourceLocation)
        let reconnects = String(decoding: ended.error, as: UTF8.self).components(separatedBy: "reconnecting").count - 1
        return "caught up \(Self.milliseconds(elapsed)) ms after the heal (6 s cut, \(dropped) packets dropped server/client, "
            + "\(reconnects) failed sessions or connects logged by the follower)"
    }

    /// Makes `count` shares on the served store, by another process, as a user would.
    private func createShares(on main: SharelogCLI, from first: Int, count: Int) throws {
        for index in first..<first + count {
            _ = try main.run("share", "create", "-", "--ttl", "1d", "--json", input: SampleCard.make(index: index)).checked("sharelog share create")
        }
    }

    /// The client store holds exactly the server's events, each once,
    /// `verify` passes, and three seeded shares read back as the seed made them.
    func expectConverged(_ reading: SharelogCLI, events: Int, sourceLocation: SourceLocation) throws {
        let main = SharelogCLI.forFaults(store: directory.appending("main"))
        let ids = try reading.logIDs()
        #expect(ids.count == events, sourceLocation: sourceLocation)
        #expect(Set(ids).count == ids.count, "an event twice in \(reading.store)", sourceLocation: sourceLocation)
        #expect(Set(ids) == Set(try main.logIDs()), "the client's events are not the server's", sourceLocation: sourceLocation)
        #expect(try reading.verify() == 0, sourceLocation: sourceLocation)
        for index in [0, NetworkFaultTests.shares / 2, NetworkFaultTests.shares - 1] {
            let card = try reading.run("share", "get", names[index], "--vcard")
            let same = card.output == SampleCard.make(index: index, photoBytes: NetworkFaultTests.photoBytes)
            #expect(card.status == 0 && same, "share \(index) in \(reading.store): \(card.error)", sourceLocation: sourceLocation)
        }
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }
}
