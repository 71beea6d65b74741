import Foundation
import Testing
import TestSupport
import TestTraits

/// Processes that open a new store at once each open it: the first open
/// makes the high-water file, and the others wait for it rather than race
/// it. They once shared one temporary name, and a losing open failed with
/// "renaming high-water.tmp: No such file or directory" (16 of 60 rounds of
/// this test's shape; a follower racing `stats` in `HostileNetworkTests`).
@Suite(.hangDeadline, .ownThread) struct HighWaterRaceTests {
    @Test func processesOpeningANewStoreAtOnceAllOpenIt() throws {
        for round in 0..<5 {
            let directory = TemporaryDirectory("high-water-race")
            let cli = SharelogCLI(store: directory.appending("store"), now: "2027-01-15T10:00:00Z")
            // `init` creates the store if it is missing; every one of them
            // opens it and prints the one identity it has.
            let processes = try (0..<8).map { _ in try cli.start(["init", "--json"]) }
            var replicas: Set<String> = []
            for (index, process) in processes.enumerated() {
                let outcome = try process.finish(timeout: .seconds(60))
                let error = String(decoding: outcome.error, as: UTF8.self)
                #expect(outcome.status == 0, "round \(round), process \(index): \(error)")
                #expect(!error.contains("storage failed"), "round \(round), process \(index): \(error)")
                let printed = try? JSONSerialization.jsonObject(with: Data(outcome.output)) as? [String: Any]
                if let replica = printed?["replicaID"] as? String { replicas.insert(replica) }
            }
            #expect(replicas.count == 1, "round \(round): the processes saw \(replicas.count) identities")
        }
    }
}
