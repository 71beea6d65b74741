import Foundation
import TestSupport
import Testing
@testable import ShareLog

@Suite struct ConvergenceTests {
    /// Events from three replicas over 40 shares: plain creates, rival
    /// creates for one name, ttl expiries, revocations (some before the
    /// create), duplicate expiries and unknown kinds.
    static func history() -> [Event] {
        let replicas = [ForeignReplica(), ForeignReplica(), ForeignReplica()]
        let start = Timestamp(milliseconds: 1_800_000_000_000)
        var events: [Event] = []
        for index in 0..<40 {
            let name = RecordName.random()
            let owner = replicas[index % 3]
            events.append(owner.created(name, vCard: smallCard(index), at: start, ttl: .seconds(60 + index)))
            if index % 4 == 0 {
                events.append(replicas[(index + 1) % 3].created(name, vCard: smallCard(1000 + index), at: start, ttl: .seconds(90)))
            }
            if index % 3 == 0 {
                events.append(owner.event(.shareExpired(ShareExpired(recordName: name, at: start.advanced(by: .seconds(60 + index)), reason: .ttl))))
            }
            if index % 5 == 0 {
                events.append(replicas[2].event(.shareExpired(ShareExpired(recordName: name, at: start.advanced(by: .seconds(30)), reason: .revoked))))
            }
        }
        events.append(replicas[0].event(.unknown(code: 99, flags: 0, payload: [9, 9])))
        return events
    }

    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func replicasThatApplyTheSameEventsInAnyOrderConverge(seed: UInt64) throws {
        let events = Self.history()
        var generator = SeededGenerator(seed: seed)
        var orderA = events + events.prefix(10)
        var orderB = events + events.suffix(10)
        orderA.shuffle(using: &generator)
        orderB.shuffle(using: &generator)
        let a = try TestStore(), b = try TestStore()
        // Different batchings too: one event per transaction against chunks.
        for event in orderA { try a.store.apply([event]) }
        for chunk in stride(from: 0, to: orderB.count, by: 7) {
            try b.store.apply(Array(orderB[chunk..<min(chunk + 7, orderB.count)]))
        }
        #expect(try a.contents(of: \.shares) == b.contents(of: \.shares))
        #expect(try a.contents(of: \.expiry) == b.contents(of: \.expiry))
        let statsA = try a.store.stats(), statsB = try b.store.stats()
        #expect(statsA.live == statsB.live && statsA.expired == statsB.expired)
        #expect(statsA.events == events.count && statsB.events == events.count)
        #expect(try a.store.verify().isConsistent && b.store.verify().isConsistent)
    }

    @Test func expiredIsTerminalEvenWhenTheTombstoneArrivesFirst() throws {
        let test = try TestStore()
        let replica = ForeignReplica()
        let name = RecordName.random()
        let now = test.clock.now()
        try test.store.apply([replica.event(.shareExpired(ShareExpired(recordName: name, at: now, reason: .revoked)))])
        try test.store.apply([replica.created(name, at: now, ttl: .seconds(3600))])
        #expect(try test.store.fetch(name) == .expired(at: now, reason: .revoked))
        #expect(try test.contents(of: \.expiry).isEmpty)
        #expect(try test.store.stats().pendingRedactions == 1)
    }

    @Test func ofTwoCreationsTheSmallerEventIDWins() throws {
        let test = try TestStore()
        let one = ForeignReplica(), other = ForeignReplica()
        let (small, large) = one.id < other.id ? (one, other) : (other, one)
        let name = RecordName.random()
        let now = test.clock.now()
        try test.store.apply([large.created(name, vCard: smallCard(2), at: now, ttl: .seconds(600))])
        try test.store.apply([small.created(name, vCard: smallCard(1), at: now, ttl: .seconds(900))])
        guard case .live(let share) = try test.store.fetch(name) else { Issue.record("not live"); return }
        #expect(share.vCard == smallCard(1))
        #expect(share.expiresAt == now.advanced(by: .seconds(900)))
        #expect(try test.contents(of: \.expiry).count == 1)
    }
}
