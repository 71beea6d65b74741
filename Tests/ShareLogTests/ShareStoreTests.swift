import Foundation
import LMDB
import ShareClip
import Testing
import TestSupport
import TestTraits
@testable import ShareLog

@Suite(.ownThread) struct ShareStoreTests {
    @Test func aCreatedShareIsFetchedByRecordNameAndByLink() throws {
        let test = try TestStore()
        let card = smallCard(7)
        let created = try test.store.create(vCard: card)
        #expect(created.expiresAt == created.createdAt.advanced(by: .seconds(7 * 24 * 3600)))
        #expect(created.link == "https://cards.example.com/appclip?id=\(created.recordName)")
        let expected = Share(recordName: created.recordName, vCard: card, createdAt: created.createdAt, expiresAt: created.expiresAt)
        #expect(try test.store.fetch(created.recordName) == .live(expected))
        #expect(try test.store.fetch(link: created.link) == .live(expected))
        #expect(try test.store.fetch(link: created.link.uppercased().replacingOccurrences(of: "HTTPS://CARDS.EXAMPLE.COM/APPCLIP?ID=", with: "https://cards.example.com/appclip?id=")) == .live(expected))
    }

    @Test func theLinkDomainIsConfigurable() throws {
        let dir = TemporaryDirectory()
        var options = ShareStore.Options()
        options.linkDomain = try AppClipDomain("share.acme.test")
        let store = try ShareStore.open(at: dir.path, creatingIfMissing: true, options: options)
        let created = try store.create(vCard: smallCard())
        #expect(created.link == "https://share.acme.test/appclip?id=\(created.recordName)")
        #expect(throws: ShareLogError.self) {
            try store.fetch(link: "https://cards.example.com/appclip?id=\(created.recordName)")
        }
    }

    @Test func aShareIsExpiredFromItsExpiryTimeEvenBeforeASweep() throws {
        let test = try TestStore()
        let created = try test.store.create(vCard: smallCard(), ttl: .seconds(3600))
        // ManualClock's start, and an hour later.
        let start = Timestamp(milliseconds: 1_800_000_000_000)
        let hourLater = Timestamp(milliseconds: 1_800_003_600_000)
        let live = Share(recordName: created.recordName, vCard: smallCard(), createdAt: start, expiresAt: hourLater)
        #expect(try test.store.fetch(created.recordName, at: Timestamp(milliseconds: 1_800_003_599_999)) == .live(live))
        #expect(try test.store.fetch(created.recordName, at: hourLater) == .expired(at: hourLater, reason: .ttl))
        test.clock.advance(by: .seconds(3600))
        #expect(throws: ShareLogError.expired(created.recordName, at: created.expiresAt, reason: .ttl)) {
            try test.store.share(created.recordName)
        }
    }

    @Test func anUnknownRecordNameIsNotFound() throws {
        let test = try TestStore()
        let name = RecordName.random()
        #expect(try test.store.fetch(name) == .notFound)
        #expect(throws: ShareLogError.notFound(name)) { try test.store.share(name) }
    }

    @Test func revokingEndsAShareAtOnceAndDropsItsCard() throws {
        let test = try TestStore()
        let created = try test.store.create(vCard: smallCard())
        test.clock.advance(by: .seconds(120))
        let revoked = try test.store.revoke(created.recordName)
        #expect(revoked.at == test.clock.now())
        #expect(try test.store.fetch(created.recordName) == .expired(at: revoked.at, reason: .revoked))
        // The card's one copy, in the log, is queued for compaction.
        #expect(try test.store.stats().pendingRedactions == 1)
    }

    @Test func revokingTwiceOrRevokingTheUnknownWritesNothing() throws {
        let test = try TestStore()
        let created = try test.store.create(vCard: smallCard())
        try test.store.revoke(created.recordName)
        let events = try test.store.stats().events
        #expect(throws: ShareLogError.self) { try test.store.revoke(created.recordName) }
        #expect(throws: ShareLogError.notFound(RecordName(uuid: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1))))) {
            try test.store.revoke(RecordName(uuid: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1))))
        }
        #expect(try test.store.stats().events == events)
    }

    @Test func revokingADueShareReportsItExpiredAndWritesNothing() throws {
        let test = try TestStore()
        let created = try test.store.create(vCard: smallCard(), ttl: .seconds(60))
        test.clock.advance(by: .seconds(61))
        #expect(throws: ShareLogError.expired(created.recordName, at: created.expiresAt, reason: .ttl)) {
            try test.store.revoke(created.recordName)
        }
        #expect(try test.store.stats().events == 1)
    }

    static let badCards: [(String, [UInt8])] = [
        ("not UTF-8", Array("BEGIN:VCARD\r\nFN:\u{0}".utf8) + [0xFF, 0xFE] + Array("\r\nEND:VCARD\r\n".utf8)),
        ("no BEGIN", Array("FN:Someone\r\nEND:VCARD\r\n".utf8)),
        ("no END", Array("BEGIN:VCARD\r\nFN:Someone\r\n".utf8)),
        ("empty", []),
        ("over 1 MiB", Array("BEGIN:VCARD\r\nNOTE:".utf8) + [UInt8](repeating: 0x41, count: 1 << 20) + Array("\r\nEND:VCARD\r\n".utf8)),
    ]

    @Test(arguments: badCards)
    func invalidCardsAreRefusedWithNothingWritten(label: String, card: [UInt8]) throws {
        let test = try TestStore()
        let error = #expect(throws: ShareLogError.self) { try test.store.create(vCard: card) }
        guard case .invalidVCard = error else {
            Issue.record("\(label): expected invalidVCard, got \(String(describing: error))")
            return
        }
        #expect(try test.store.stats().events == 0)
    }

    @Test(arguments: [Duration.seconds(59), .seconds(0), .seconds(-60), .seconds(30 * 24 * 3600 + 1)])
    func ttlsOutsideOneMinuteToThirtyDaysAreRefused(ttl: Duration) throws {
        let test = try TestStore()
        #expect(throws: ShareLogError.invalidTTL(seconds: ttl.components.seconds)) { try test.store.create(vCard: smallCard(), ttl: ttl) }
        #expect(try test.store.stats().events == 0)
    }

    @Test(arguments: [Duration.seconds(60), .seconds(30 * 24 * 3600)])
    func ttlsAtTheLimitsAreAccepted(ttl: Duration) throws {
        let test = try TestStore()
        let created = try test.store.create(vCard: smallCard(), ttl: ttl)
        #expect(created.expiresAt == created.createdAt.advanced(by: ttl))
    }

    @Test(arguments: [
        "http://cards.example.com/appclip?id=6f1c2a9e-58b4-4d9a-9f0e-2b7c1d3e4f50",
        "https://evil-example.com/appclip?id=6f1c2a9e-58b4-4d9a-9f0e-2b7c1d3e4f50",
        "https://cards.example.com/other?id=6f1c2a9e-58b4-4d9a-9f0e-2b7c1d3e4f50",
        "https://cards.example.com/appclip",
        "https://cards.example.com/appclip?id=not-a-uuid",
    ])
    func badLinksAreRefused(link: String) throws {
        let test = try TestStore()
        #expect(throws: ShareLogError.self) { try test.store.fetch(link: link) }
    }

    @Test func openingWhereNoStoreWasInitialisedFailsAndCreatesNothing() throws {
        let dir = TemporaryDirectory()
        let path = dir.appending("absent")
        #expect(throws: ShareLogError.storeNotFound(path: path)) { try ShareStore.open(at: path) }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func initialisingTwiceKeepsTheIdentity() throws {
        let dir = TemporaryDirectory()
        let first = try ShareStore.open(at: dir.path, creatingIfMissing: true)
        let second = try ShareStore.open(at: dir.path, creatingIfMissing: true)
        let (created, createdAgain) = (first.wasCreated, second.wasCreated)
        #expect(created && !createdAgain)
        #expect(first.replicaID == second.replicaID && first.epoch == second.epoch)
    }

    @Test func statsCountEventsSharesAndDueWork() throws {
        let test = try TestStore()
        let a = try test.store.create(vCard: smallCard(1), ttl: .seconds(60))
        _ = try test.store.create(vCard: smallCard(2))
        let c = try test.store.create(vCard: smallCard(3))
        try test.store.revoke(c.recordName)
        test.clock.advance(by: .seconds(61))
        let stats = try test.store.stats()
        #expect(stats.events == 4)
        #expect(stats.live == 2 && stats.expired == 1 && stats.due == 1)
        #expect(stats.replicaID == test.store.replicaID)
        _ = a
    }

    @Test func theLogListsEventsInOrderInBoundedChunks() throws {
        let test = try TestStore()
        for index in 0..<5 { _ = try test.store.create(vCard: smallCard(index)) }
        let first = try test.store.events(after: 0, limit: 2)
        #expect(first.map(\.position) == [1, 2])
        let rest = try test.store.events(after: 2, limit: 10)
        #expect(rest.map(\.position) == [3, 4, 5])
        #expect(rest.map(\.event.id.counter) == [3, 4, 5])
        // A byte limit below one event still returns one.
        #expect(try test.store.events(after: 0, limit: 10, maxBytes: 1).count == 1)
        #expect(try test.store.events(after: 5).isEmpty)
    }

    @Test func aDuplicateEventIsANoOp() throws {
        let test = try TestStore()
        let replica = ForeignReplica()
        let event = replica.created(at: test.clock.now(), ttl: .seconds(3600))
        #expect(try test.store.apply([event, event]) == ApplyReport(applied: 1, duplicates: 1))
        #expect(try test.store.apply([event]) == ApplyReport(applied: 0, duplicates: 1))
        #expect(try test.store.stats().events == 1)
    }
}

@Suite struct ShareStoreBatchTests {
    @Test func aBatchOfCardsIsCreatedInOneTransaction() throws {
        let test = try TestStore()
        let before = test.store.environment.info.lastTransactionID
        let created = try test.store.create(vCards: (0..<50).map { smallCard($0) })
        #expect(Set(created.map(\.recordName)).count == 50)
        #expect(test.store.environment.info.lastTransactionID == before + 1)
        // Created at ManualClock's start, for the default seven days.
        #expect(try test.store.fetch(created[49].recordName) == .live(Share(
            recordName: created[49].recordName, vCard: smallCard(49),
            createdAt: Timestamp(milliseconds: 1_800_000_000_000), expiresAt: Timestamp(milliseconds: 1_800_604_800_000))))
    }

    @Test func oneBadCardRefusesTheWholeBatch() throws {
        let test = try TestStore()
        #expect(throws: ShareLogError.self) { try test.store.create(vCards: [smallCard(1), Array("nope".utf8)]) }
        #expect(try test.store.stats().events == 0)
    }

    @Test func concurrentAsyncCreatesAllLand() async throws {
        let test = try TestStore()
        let names = try await withThrowingTaskGroup(of: RecordName.self) { group in
            for index in 0..<40 { group.addTask { try await test.store.create(vCard: smallCard(index)).recordName } }
            return try await group.reduce(into: Set<RecordName>()) { $0.insert($1) }
        }
        #expect(names.count == 40)
        #expect(try test.store.stats().live == 40)
    }
}

@Suite struct ApplyValidationTests {
    @Test func aBatchWithACardThisStoreWouldRefuseWritesNothing() throws {
        let test = try TestStore()
        let replica = ForeignReplica()
        let good = replica.created(at: test.clock.now(), ttl: .seconds(600))
        let bad = replica.created(vCard: Array("not a card".utf8), at: test.clock.now(), ttl: .seconds(600))
        #expect(throws: ShareLogError.self) { try test.store.apply([good, bad]) }
        #expect(try test.store.stats().events == 0)
    }
}
