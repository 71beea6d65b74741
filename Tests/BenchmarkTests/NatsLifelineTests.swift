import Foundation
import Glibc
import TestSupport
import Testing
@testable import BenchmarkKit
import TestTraits

/// The relay workload's NATS cluster does not outlive a killed benchmark.
@Suite(.hangDeadline, .ownThread) struct NatsLifelineTests {
    @Test func aKilledBenchmarkLeavesNoNatsServer() throws {
        let directory = TemporaryDirectory()
        let work = directory.appending("work")
        // The relay workload starts its cluster first.
        let process = try Subprocess(
            Executables.besideThisProcess().bench,
            ["run", "--quick", "--only", "relay", "--work", work, "--out", directory.appending("out")],
            environment: ProcessInfo.processInfo.environment)
        // Whatever happens, no server of this test outlives it.
        defer { for pid in PeerProcesses.natsServers(under: work) { kill(pid, SIGKILL) } }
        // The workload fills its source store once the cluster runs and its
        // lifeline watches it, and before it makes anything outside the
        // work directory.
        try Deadline.block(until: "the benchmark has started its cluster", every: .milliseconds(20)) {
            _ = process.readOutput(waitingAtMost: 0)
            guard process.isRunning else {
                throw BenchError.process("sharelog-bench ended: \(String(decoding: process.errorOutput, as: UTF8.self))")
            }
            return String(decoding: process.errorOutput, as: UTF8.self).contains("relay: filling the source store")
        }
        #expect(PeerProcesses.natsServers(under: work).count == 3)

        process.kill()
        let outcome = try process.finish(timeout: .seconds(60))
        #expect(outcome.signaled && outcome.status == SIGKILL)
        try Deadline.block(until: "the orphaned nats-servers have stopped", every: .milliseconds(20)) {
            PeerProcesses.natsServers(under: work).isEmpty
        }
        try Deadline.block(until: "the orphaned relay peers have stopped", every: .milliseconds(20)) {
            PeerProcesses.running(under: work).isEmpty
        }
    }
}
