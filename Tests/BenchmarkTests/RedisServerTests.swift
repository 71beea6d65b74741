import Foundation
import TestSupport
import Testing
@testable import BenchmarkKit
import TestTraits

/// The benchmark's redis-server never outlives it: a run that dies,
/// however it dies, takes its server with it, so no stray process is left.
@Suite(.hangDeadline, .ownThread) struct RedisServerTests {
    @Test func aKilledBenchmarkLeavesNoRedisServer() throws {
        let directory = TemporaryDirectory()
        let work = directory.appending("work")
        // The create workload starts a server at once, with the other stores.
        let process = try Subprocess(
            Executables.besideThisProcess().bench,
            ["run", "--quick", "--only", "create", "--work", work, "--out", directory.appending("out")],
            environment: ProcessInfo.processInfo.environment)
        var servers: [Int32] = []
        try Deadline.block(until: "the benchmark has started redis-server", every: .milliseconds(20)) {
            _ = process.readOutput(waitingAtMost: 0)
            guard process.isRunning else {
                throw BenchError.process("sharelog-bench ended: \(String(decoding: process.errorOutput, as: UTF8.self))")
            }
            servers = RedisProcesses.running(under: work)
            // The server sets its process title, which names its socket,
            // a moment after it starts: until then its command line is
            // the one it was started with.
            return !servers.isEmpty && RedisProcesses.socket(of: servers[0]) != nil
        }
        #expect(servers.count == 1)
        let socket = try #require(RedisProcesses.socket(of: servers[0]))
        #expect(socket.hasPrefix("/tmp/sharelog-redis-"), "\(socket)")

        process.kill()
        let outcome = try process.finish(timeout: .seconds(60))
        #expect(outcome.signaled && outcome.status == SIGKILL)
        try Deadline.block(until: "the orphaned redis-server has stopped", every: .milliseconds(20)) {
            RedisProcesses.running(under: work).isEmpty
        }
        // The shell that ran it removed the socket's temporary folder too.
        let folder = (socket as NSString).deletingLastPathComponent
        try Deadline.block(until: "the socket's folder is removed", every: .milliseconds(20)) {
            !FileManager.default.fileExists(atPath: folder)
        }
    }
}
