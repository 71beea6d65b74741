import Foundation
import TestSupport
import Testing
import TestTraits
@testable import ShareLog

/// Projection rules checked against `ReferenceModel`, an independent plain
/// statement of docs/ENGINE.md, by decoding every database of the store per
/// docs/FORMAT.md (`StoreDecoder`). Failures name the seed that replays them.
@Suite(.ownThread) struct ConvergenceTests {
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
        var modelA = ReferenceModel(replica: a.store.replicaID), modelB = ReferenceModel(replica: b.store.replicaID)
        orderA.forEach { modelA.receive($0) }
        orderB.forEach { modelB.receive($0) }
        try Self.expect(a, holds: modelA.image(), "seed \(seed), store A")
        try Self.expect(b, holds: modelB.image(), "seed \(seed), store B")
        // Equal byte for byte, but for the log positions each replica's own
        // log gives the winning creation (FORMAT.md: creation bytes 42..<50
        // of a state with a creation; bytes 0..<8 of an expiry value).
        #expect(try Self.withoutPositions(a.contents(of: \.shares), at: 42) == Self.withoutPositions(b.contents(of: \.shares), at: 42))
        #expect(try Self.withoutPositions(a.contents(of: \.expiry), at: 0) == Self.withoutPositions(b.contents(of: \.expiry), at: 0))
        #expect(try a.store.verify().isConsistent && b.store.verify().isConsistent)
    }

    /// Random orders and batchings, duplicates, an event arriving once whole
    /// and once redacted, sweeps, compactions, revokes and local creates: after
    /// every step, every database and counter is what the model says and
    /// every fetch answers what the model says. A seed replays the script;
    /// the store's own replica id is random (made by `ShareStore.create`), so
    /// the message names it too, for ties between its events and foreign ones.
    @Test(arguments: 1...32 as ClosedRange<UInt64>)
    func everyDatabaseMatchesTheReferenceModelAfterEveryStep(seed: UInt64) throws {
        let test = try TestStore()
        let script = ConvergenceScript(seed: seed, start: test.clock.now())
        var model = ReferenceModel(replica: test.store.replicaID)
        var names = script.names
        var seen = ScriptCoverage()
        for (index, step) in script.steps.enumerated() {
            let context = "seed \(seed), step \(index): \(step); this store is replica \(test.store.replicaID)"
            let now = test.clock.now()
            switch step {
            case .deliver(let events):
                let report = try test.store.apply(events)
                let applied = events.filter { event in seen.note(event, logged: model.receive(event)) }
                #expect(report.applied == applied.count, "\(context)")
            case .advance(let duration):
                test.clock.advance(by: duration)
            case .sweep(let batchSize):
                let expired = model.sweep(at: now)
                #expect(try test.store.sweep(batchSize: batchSize).expired == expired, "\(context)")
                seen.sweptShares += expired
            case .compact(let batchSize):
                let redacted = model.compact()
                #expect(try test.store.compact(batchSize: batchSize).redacted == redacted, "\(context)")
                seen.redactedEntries += redacted
            case .revoke(let choice):
                // Every other revoke aims at the store's newest share, which
                // is likely still live: foreign tombstones never name it.
                let name = choice % 2 == 0 && names.count > script.names.count ? names[names.count - 1] : names[choice % names.count]
                let refusal = model.revoke(name, at: now)
                do {
                    let expired = try test.store.revoke(name)
                    #expect(refusal == nil && expired == ShareExpired(recordName: name, at: now, reason: .revoked), "\(context)")
                    seen.revokes += 1
                } catch {
                    #expect(error == refusal, "\(context)")
                }
            case .create(let card, let ttl):
                let created = try test.store.create(vCard: smallCard(card), ttl: ttl)
                model.create(created.recordName, vCard: smallCard(card), at: now, ttl: ttl)
                names.append(created.recordName)
            }
            let expected = model.image()
            guard try Self.expect(test, holds: expected, context) else { return }
            for name in names {
                let answer = ReferenceModel.fetch(name, at: test.clock.now(), in: expected)
                #expect(try test.store.fetch(name) == answer, "\(context), fetch \(name)")
            }
        }
        #expect(seen.missing.isEmpty, "seed \(seed) never exercised \(seen.missing)")
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

    /// The `expiry` key stores a time before 1970 as 0 (docs/FORMAT.md), but a
    /// sweep logs the share's own `expiresAt`, so a fetch answers the same
    /// before and after it.
    @Test func aSweepExpiresAShareDueBefore1970AtItsOwnExpiresAt() throws {
        let test = try TestStore()
        let name = RecordName.random()
        try test.store.apply([ForeignReplica().created(name, at: Timestamp(milliseconds: -120_000), ttl: .seconds(60))])
        #expect(try test.store.fetch(name) == .expired(at: Timestamp(milliseconds: -60_000), reason: .ttl))
        #expect(try test.store.sweep().expired == 1)
        #expect(try test.store.fetch(name) == .expired(at: Timestamp(milliseconds: -60_000), reason: .ttl))
    }

    @Test func beforeThe1970sOnlySharesWhoseOwnExpiresAtIsDueAreDueOrSwept() throws {
        let test = try TestStore()
        let replica = ForeignReplica()
        let early = RecordName.random(), late = RecordName.random()
        // Both sit under index key 0; only `early` is due at -500 ms.
        try test.store.apply([
            replica.created(early, at: Timestamp(milliseconds: -120_000), ttl: .seconds(119)),
            replica.created(late, at: Timestamp(milliseconds: -120_000), ttl: .milliseconds(119_990)),
        ])
        let now = Timestamp(milliseconds: -500)
        #expect(try test.store.stats(at: now).due == 1)
        #expect(try test.store.sweep(at: now).expired == 1)
        #expect(try test.store.fetch(early, at: now) == .expired(at: Timestamp(milliseconds: -1_000), reason: .ttl))
        #expect(try test.store.fetch(late, at: now) == .live(Share(
            recordName: late, vCard: smallCard(), createdAt: Timestamp(milliseconds: -120_000),
            expiresAt: Timestamp(milliseconds: -10))))
        #expect(try test.store.stats(at: now).due == 0)
        #expect(try test.store.verify().isConsistent)
    }

    /// Records an issue listing every difference between the store's
    /// databases and `expected` (the model's image), or the bytes the
    /// decoder refused, and returns whether all was as expected.
    @discardableResult
    static func expect(_ test: TestStore, holds expected: StoreImage, _ context: String) throws -> Bool {
        let stored: StoreImage
        do { stored = try StoreDecoder.image(of: test) } catch let refusal as StoreDecoder.Refusal {
            Issue.record("\(context)\nnot in docs/FORMAT.md: \(refusal)")
            return false
        }
        guard stored != expected else { return true }
        let differences = stored.differences(from: expected).joined(separator: "\n")
        Issue.record("\(context)\n\(differences)")
        return false
    }

    /// `contents` with the 8 bytes at `offset` of each value zeroed, where
    /// a value that long holds a log position there (a state holds one only
    /// with its creation flag, bit 0 of byte 1).
    static func withoutPositions(_ contents: [[UInt8]: [UInt8]], at offset: Int) -> [[UInt8]: [UInt8]] {
        contents.mapValues { value in
            guard value.count >= offset + 8, offset == 0 || value[1] & 1 != 0 else { return value }
            var copy = value
            copy.replaceSubrange(offset..<offset + 8, with: repeatElement(0, count: 8))
            return copy
        }
    }
}
