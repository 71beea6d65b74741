import CrashHarness
import Foundation
import SampleCards
import Testing
import TestSupport
@testable import ShareLog
import TestTraits

/// The crash runner's own decisions: a run that tested nothing fails, a hung
/// writer fails the run instead of hanging it, and the map size it reports
/// is the one LMDB's own tool reads.
@Suite(.hangDeadline) struct CrashRunnerTests {
    @Test func aRunInWhichNothingWasAcknowledgedFails() {
        var report = CrashReport(workload: "shares", seed: 3, writers: [1, 3])
        report.kills = 4
        report.stores = 1
        report.checks = 4
        report.judge()
        #expect(report.violations == [
            "no writer acknowledged any operation in the whole run (4 kills), so nothing was checked: "
                + "the writers died before their first commit returned",
        ])
        #expect(!report.passed)
        #expect(report.text.contains("FAILED: 1 violations"))
    }

    @Test func aRunThatAcknowledgedOperationsPassesAndAViolationStaysTheOnlyOne() {
        var passing = CrashReport(workload: "shares", seed: 3, writers: [1])
        passing.kills = 4
        passing.acknowledged = 1
        passing.judge()
        #expect(passing.violations == [])
        #expect(passing.passed)

        var broken = CrashReport(workload: "shares", seed: 3, writers: [1])
        broken.kills = 1
        broken.violations = ["log sequences jump from 1 to 3"]
        broken.judge()
        #expect(broken.violations == ["log sequences jump from 1 to 3"])
    }

    @Test func aWriterThatNeverOpensTheStoreFailsTheRunInsteadOfHangingIt() throws {
        let directory = TemporaryDirectory(#function)
        // A "writer" that never prints ready: it hangs from its first moment.
        let script = directory.appending("hung-writer")
        try "#!/bin/sh\nexec sleep 600\n".write(toFile: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: script)
        var options = CrashRunOptions()
        options.kills = 2
        options.writers = [2]
        // With this seed the round waits for ready (one round in ten kills during start-up instead).
        options.seed = 1
        options.startTimeout = .milliseconds(300)
        options.directory = directory.appending("stores")
        let report = try CrashRunner(workload: ShareWorkload(), options: options,
                                     executable: URL(fileURLWithPath: script)).run()
        #expect(report.violations == [
            "writers [0, 1] did not open the store within 0.3 seconds (no ready line): they hung, and were killed",
        ])
        #expect(report.kills == 2 && report.acknowledged == 0)
        #expect(report.failedStore == directory.appending("stores/store-0"))
    }

    @Test func theCommittedMapSizeIsTheOneMdbStatReads() throws {
        let fixture = try ReliabilityStore { $0.environment.mapSize = CrashStore.initialMapBytes }
        for index in 0..<40 {
            _ = try fixture.store.create(vCard: SampleCard.make(index: index, photoBytes: 4000), ttl: .seconds(600))
        }
        let result = try ExternalCommand.run("/usr/bin/mdb_stat", ["-e", fixture.path])
        #expect(result.status == 0, "\(result.error)")
        let line = try #require(result.output.split(separator: "\n").first { $0.contains("Map size:") })
        let mdbStat = try #require(Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)))
        #expect(try CrashStore.committedMapBytes(at: fixture.path) == mdbStat)
        // 40 cards with photos do not fit the 16 KiB map this store opened with.
        #expect(mdbStat > CrashStore.initialMapBytes)
    }
}
