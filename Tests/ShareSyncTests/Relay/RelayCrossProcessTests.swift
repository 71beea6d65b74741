import Foundation
import ShareLog
import ShareSync
import TestSupport
import Testing
import TestTraits

/// A relay publishes a commit that another process made on its store
/// (`sharelog share create`) when the store's commit signal announces it,
/// not at its heartbeat (an hour here): a share created by another process
/// reaches the relayed stream with no tick involved.
@Suite(.serialized, .hangDeadline)
struct RelayCrossProcessTests {
    @Test func aCommitByAnotherProcessGoesOutWithoutWaitingForTheHeartbeat() throws {
        let fixture = try RelayFixture("relaycrossprocess")
        let a = try fixture.replica("a")
        let relay = try InProcessRelay(a, cluster: fixture.cluster, heartbeat: .seconds(3600))
        for index in 0..<3 {
            let card = fixture.directory.appending("card-\(index).vcf")
            try Data(TestCard.make("a", index)).write(to: URL(fileURLWithPath: card))
            let created = try a.cli.run("share", "create", card)
            #expect(created.status == 0, "\(created.error)")
            try fixture.observer.waitUntilEveryServerHolds(index + 1, timeout: .seconds(60))
        }
        try relay.stop()
        #expect(relay.relay.statistics.current.published == 3)
    }
}
