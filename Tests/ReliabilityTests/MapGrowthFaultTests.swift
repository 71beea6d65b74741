import SampleCards
import Testing
@testable import ShareLog
import TestTraits

/// A store whose map starts small grows through a long run of creates, each
/// its own transaction, and keeps every share; reopened with the same small
/// setting, it adopts the larger file and goes on growing.
@Suite(.hangDeadline, .ownThread) struct MapGrowthFaultTests {
    static let initialMap = 256 << 10

    @Test func aLongRunOfCreatesGrowsTheMapAndKeepsEveryShare() throws {
        let fixture = try ReliabilityStore { $0.environment.mapSize = Self.initialMap }
        var created: [(RecordName, [UInt8])] = []
        for index in 0..<3000 {
            let card = SampleCard.make(index: index, photoBytes: index % 50 == 0 ? 4000 : nil)
            created.append((try fixture.store.create(vCard: card, ttl: .seconds(3600)).recordName, card))
        }
        let stats = try fixture.store.stats()
        #expect(stats.mapBytes >= 8 * Self.initialMap)
        #expect(stats.events == 3000 && stats.live == 3000)
        for (name, card) in created { #expect(try fixture.store.share(name).vCard == card) }
        #expect(try fixture.store.verify().isConsistent)
    }

    @Test func aReopenedStoreAdoptsTheGrownFileAndGrowsOn() throws {
        let directory = try ReliabilityStore().directory
        var options = ShareStore.Options()
        options.environment.mapSize = Self.initialMap
        options.environment.durability = .noSync
        let path = directory.appending("grown")
        let first: [RecordName] = try {
            let store = try ShareStore.open(at: path, creatingIfMissing: true, options: options)
            return try (0..<1500).map { try store.create(vCard: SampleCard.make(index: $0)).recordName }
        }()
        let store = try ShareStore.open(at: path, options: options)
        let second = try (0..<1500).map { try store.create(vCard: SampleCard.make(index: 5000 + $0)).recordName }
        for name in first + second { #expect(try store.share(name).recordName == name) }
        #expect(try store.stats().events == 3000)
        #expect(try store.verify().isConsistent)
    }
}
