import CrashHarness
import Foundation
import TestSupport
import Testing
@testable import ShareLog
import TestTraits

/// `verify` while another process writes: a `sharelog-crash writer` child
/// keeps creating, reading back, revoking, sweeping and compacting (with
/// its scrub) in the store, while this process runs `verify` over and over.
/// Every verify reads one snapshot, so every one must report the store
/// consistent, with no gap and nothing corrupt, whatever the writer is in
/// the middle of. Afterwards the writer is killed and the store is checked
/// against everything it acknowledged (the crash harness's model), so the
/// verifies did not disturb its writes either.
///
/// The writer runs under a watchdog and is killed on every path out of the
/// test; every wait has a deadline.
@Suite(.hangDeadline, .ownThread)
struct ConcurrentVerifyTests {
    /// Verifies that must overlap a commit of the writer's.
    static let overlapping = 20
    /// Operations, and compactions among them, the writer must acknowledge
    /// while this process verifies, so the verifies meet a store with
    /// expired, revoked and redacted shares and scrubbed pages.
    static let operations = 300, compactions = 3

    @Test func everyVerifyIsConsistentWhileAnotherProcessWrites() throws {
        let directory = TemporaryDirectory()
        let path = directory.appending("store")
        // The parent makes the store, as the crash runner does.
        _ = try ShareStore.open(at: path, creatingIfMissing: true)
        let writer = try ChildProcess(ExternalCommand.built("sharelog-crash"), [
            "writer", "--store", path, "--slot", "0", "--seed", "9", "--first", "0", "--time", "\(ReliabilityStore.start)",
        ])
        defer { writer.stop() }
        var history = CrashHistory()
        try record([writer.nextLine(until: "the writer opened the store")], into: &history)

        try verifyWhileWriting(path, writer: writer, history: &history)

        try record(writer.stop(), into: &history)
        history.writerDied(slot: 0)
        let workload = ShareWorkload()
        var options = ShareStore.Options()
        options.clock = FixedClock(Timestamp(milliseconds: (history.latestTime ?? ReliabilityStore.start) + workload.timeStep))
        let check = try workload.checkAll(history, in: try ShareStore.open(at: path, options: options))
        #expect(check.violations.isEmpty, "\(check.violations)")
    }

    /// Runs `verify` until `overlapping` of them saw the writer commit
    /// while they ran and the writer acknowledged `operations` operations,
    /// `compactions` of them compactions, reading its lines as it goes.
    func verifyWhileWriting(_ path: String, writer: ChildProcess, history: inout CrashHistory) throws {
        let store = try ShareStore.open(at: path)
        let deadline = Deadline(
            "\(Self.overlapping) verifies overlap the writer's commits and it acknowledges \(Self.operations) operations",
            timeout: .seconds(180))
        var overlapped = 0, verifies = 0
        func compactions() -> Int { history.acknowledged.count { $0.operation.kind == "compact" } }
        while overlapped < Self.overlapping || history.acknowledged.count < Self.operations || compactions() < Self.compactions {
            try deadline.check()
            if writer.hasExited {
                Issue.record("the writer stopped: \(writer.ending)")
                return
            }
            let before = try store.stats().lastPosition
            let report = try store.verify()
            let after = try store.stats().lastPosition
            verifies += 1
            #expect(report.isConsistent, "verify \(verifies): \(report)")
            #expect(report.mismatches.isEmpty && report.corruptEvents.isEmpty && report.positionGaps.isEmpty)
            // One snapshot, taken between the two counts.
            #expect(report.events >= Int(before) && report.events <= Int(after), "verify \(verifies): \(report.events) events")
            if after > before { overlapped += 1 }
            try record(writer.availableLines(), into: &history)
        }
    }

    /// Feeds the writer's lines to the history.
    func record(_ lines: [String], into history: inout CrashHistory) throws {
        for text in lines {
            guard let line = CrashLine(parsing: text) else {
                Issue.record("the writer printed something else than a protocol line: \(text)")
                continue
            }
            try history.record(line, slot: 0)
        }
    }
}
