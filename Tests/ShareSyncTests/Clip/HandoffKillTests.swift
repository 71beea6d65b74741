import Foundation
import Testing
import TestSupport

extension ClipLifecycleTests {
    /// A handoff killed with SIGKILL at a random moment, then run again,
    /// completes: on each of 20 fresh copies of the two stores, the app
    /// ends with its own events and each adopted share's events exactly
    /// once, `verify` passes, and a further run reports the clip handed
    /// off. The kill points are seeded (printed; replay with
    /// `SHARELOG_KILL_SEED`), uniform over twice the time a whole handoff
    /// takes; the test prints where each landed.
    @Test func aHandoffKilledAtARandomMomentCompletesOnTheRerun() throws {
        let stage = try HandoffStage("handkill")
        let seed = KillBench.seed("handoff (ClipLifecycleTests)")
        var generator = SeededGenerator(seed: seed)
        let copies = stage.bench.directory.appending("copies")
        try FileManager.default.createDirectory(atPath: copies, withIntermediateDirectories: true)

        /// Fresh copies of the clip's and the app's stores.
        func copy(_ label: String) throws -> (clip: String, app: SharelogCLI) {
            let clip = (copies as NSString).appendingPathComponent("\(label)-clip")
            let app = (copies as NSString).appendingPathComponent("\(label)-app")
            try FileManager.default.copyItem(atPath: stage.clipPath, toPath: clip)
            try FileManager.default.copyItem(atPath: stage.appPath, toPath: app)
            return (clip, SharelogCLI(store: app, now: Self.twoMinutesLater))
        }

        // How long a whole handoff takes here, process start included (the
        // faster of two runs); the kill points fall in twice that, so that
        // they spread over the whole run and some come after its end.
        var window = Duration.seconds(3600)
        for label in ["calibration1", "calibration2"] {
            let calibration = try copy(label)
            let started = ContinuousClock.now
            _ = try calibration.app.run("handoff", "--from", calibration.clip).checked("sharelog handoff (calibration)")
            window = min(window, ContinuousClock.now - started)
        }
        window *= 2
        let windowNanoseconds = window.components.seconds * 1_000_000_000 + window.components.attoseconds / 1_000_000_000

        var outcomes: [String] = []
        for round in 0..<20 {
            let (clip, app) = try copy("r\(round)")
            let delay = Duration.nanoseconds(Int64.random(in: 0...max(windowNanoseconds, 1), using: &generator))
            let process = try app.start(["handoff", "--from", clip])
            let start = ContinuousClock.now
            try Deadline.block(until: "round \(round)'s kill point, \(delay) into the handoff", timeout: delay + .seconds(60)) {
                _ = process.readOutput(waitingAtMost: 0)
                return ContinuousClock.now - start >= delay || !process.isRunning
            }
            process.kill()
            let killed = CLIResult(try process.finish(timeout: .seconds(30)))

            let rerun = try app.run("--json", "handoff", "--from", clip)
            #expect(rerun.status == 0, "round \(round): \(rerun.error)")
            try expectHandedOff(stage, app: app, clip: clip, "round \(round)")
            outcomes.append("\(delay): " + Self.landing(killed, rerun))
        }
        print("ClipLifecycleTests handoff kills in a window of \(window), seed \(seed), landed:\n  "
            + outcomes.joined(separator: "\n  "))
    }

    /// A handoff killed at the one point where the two stores disagree,
    /// after the app committed the clip's shares and before the clip store
    /// is marked, completes on the rerun, which adopts nothing twice.
    ///
    /// The test stops the handoff there with the stores' write locks
    /// (`WriteLockHolder`): it holds the app's while the handoff opens the
    /// clip's store and then the app's (each open takes a write
    /// transaction), takes the clip's once the handoff has the app's
    /// `lock.mdb` open, and lets the app's go. The handoff adopts, then
    /// waits to write the mark, and is killed there.
    @Test func aHandoffKilledBetweenAdoptingAndMarkingCompletesOnTheRerun() throws {
        let stage = try HandoffStage("handmid")
        let app = SharelogCLI(store: stage.appPath, now: Self.twoMinutesLater)
        let appLock = try WriteLockHolder(store: stage.appPath)
        let process = try app.start(["handoff", "--from", stage.clipPath])
        try Deadline.block(until: "the handoff opens the app's store", timeout: .seconds(60), every: .milliseconds(2)) {
            _ = process.readOutput(waitingAtMost: 0)
            return Self.hasOpen(process.pid, (stage.appPath as NSString).appendingPathComponent("lock.mdb")) || !process.isRunning
        }
        let clipLock = try WriteLockHolder(store: stage.clipPath)
        try appLock.release()
        try Deadline.block(until: "the app holds the adopted events", timeout: .seconds(60), every: .milliseconds(5)) {
            _ = process.readOutput(waitingAtMost: 0)
            return try app.eventCount() == stage.expectedAppEventIDs.count || !process.isRunning
        }
        #expect(process.isRunning, "the handoff ended while the clip store was locked")
        process.kill()
        let killed = CLIResult(try process.finish(timeout: .seconds(30)))
        try clipLock.release()
        #expect(killed.status == -SIGKILL, "\(killed.error)")
        #expect(killed.text.isEmpty)

        let rerun = try app.run("--json", "handoff", "--from", stage.clipPath)
        #expect(rerun.status == 0, "\(rerun.error)")
        #expect(rerun.json["alreadyHandedOffAt"] == nil)
        #expect(rerun.json["sharesAdopted"] as? Int == 2)
        #expect(rerun.json["eventsApplied"] as? Int == 0)
        #expect(rerun.json["eventsAlreadyHeld"] as? Int == 2)
        try expectHandedOff(stage, app: app, clip: stage.clipPath, "after the rerun")
    }

    /// Whether process `pid` has the file at `path` open, from /proc.
    private static func hasOpen(_ pid: pid_t, _ path: String) -> Bool {
        let directory = "/proc/\(pid)/fd"
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return entries.contains { (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\($0)")) == path }
    }

    /// The app's store holds its own events and the adopted shares' events,
    /// each once, their cards as made; `verify` passes; and a further
    /// handoff, a minute later, reports the clip handed off at the
    /// handoff's time and adopts nothing.
    private func expectHandedOff(
        _ stage: HandoffStage, app: SharelogCLI, clip: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let ids = try app.logIDs()
        #expect(ids.sorted() == stage.expectedAppEventIDs, "\(what): the app holds \(ids)", sourceLocation: sourceLocation)
        #expect(Set(ids).count == ids.count, "\(what): an event appears twice in the app's log", sourceLocation: sourceLocation)
        #expect(try app.verify() == 0, "\(what): verify", sourceLocation: sourceLocation)
        for (id, card) in zip(stage.adopted, stage.adoptedCards) {
            #expect(try app.run("share", "get", id, "--vcard").output == card.bytes, "\(what): \(id)", sourceLocation: sourceLocation)
        }
        let further = try SharelogCLI(store: app.store, now: "2026-12-01T10:03:00Z").run("--json", "handoff", "--from", clip)
        #expect(further.status == 0, "\(what): \(further.error)", sourceLocation: sourceLocation)
        #expect(
            further.json["alreadyHandedOffAt"] as? String == "2026-12-01T10:02:00.000Z", "\(what): \(further.text)",
            sourceLocation: sourceLocation)
        #expect(further.json["eventsApplied"] as? Int == 0, "\(what)", sourceLocation: sourceLocation)
    }

    /// Where a kill landed, as the rerun found the stores (for the report only).
    private static func landing(_ killed: CLIResult, _ rerun: CLIResult) -> String {
        if killed.status == 0 { return "after the handoff ended" }
        if rerun.json["alreadyHandedOffAt"] is String { return "after the mark" }
        if rerun.json["eventsApplied"] as? Int == 0 { return "between adopting and marking" }
        return "before adopting"
    }
}
