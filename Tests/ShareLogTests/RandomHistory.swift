import Foundation
import TestSupport
@testable import ShareLog

/// A random life for one store, replayable from its seed: events from three
/// other replicas (creations, rival creations for one record name,
/// creations that arrive redacted, expirations before and after their
/// creation, unknown kinds) arriving in a random order and random batches,
/// with duplicates and redacted copies of creations already seen; and
/// between batches, local creates, revokes, sweeps and compactions.
enum RandomHistory {
    static func play(on test: TestStore, using generator: inout SeededGenerator) throws {
        let replicas = [ForeignReplica(), ForeignReplica(), ForeignReplica()]
        let now = test.clock.now()
        var events: [Event] = []
        for index in 0..<24 {
            let name = RecordName.random()
            let roll = Int.random(in: 0..<12, using: &generator)
            let ttl = Duration.seconds(Int.random(in: 60...900, using: &generator))
            events.append(replicas[index % 3].created(name, vCard: smallCard(index), at: now, ttl: ttl))
            if roll < 3 {
                events.append(replicas[(index + 1) % 3].created(name, vCard: smallCard(100 + index), at: now, ttl: .seconds(300)))
            }
            if roll % 3 == 0 {
                let at = now.advanced(by: .seconds(Int.random(in: 0...600, using: &generator)))
                let reason: ExpiryReason = roll % 2 == 0 ? .ttl : .revoked
                events.append(replicas[index % 3].event(.shareExpired(ShareExpired(recordName: name, at: at, reason: reason))))
            }
            if roll == 11 {
                events.append(replicas[2].event(.shareCreated(
                    ShareCreated(recordName: .random(), vCard: nil, createdAt: now, expiresAt: now.advanced(by: ttl)))))
            }
        }
        events.append(replicas[1].event(.unknown(code: 77, flags: 3, payload: [1, 2, 3])))
        let redactedCopies = events.compactMap { event -> Event? in
            guard case .shareCreated(let created) = event.kind else { return nil }
            return Event(id: event.id, kind: .shareCreated(created.redacted))
        }
        var arrivals = events + events.shuffled(using: &generator).prefix(8) + redactedCopies.shuffled(using: &generator).prefix(6)
        arrivals.shuffle(using: &generator)
        var local: [RecordName] = []
        var start = 0
        while start < arrivals.count {
            let end = min(start + Int.random(in: 1...6, using: &generator), arrivals.count)
            try test.store.apply(Array(arrivals[start..<end]))
            start = end
            switch Int.random(in: 0..<8, using: &generator) {
            case 0:
                let ttl = Duration.seconds(Int.random(in: 60...900, using: &generator))
                local.append(try test.store.create(vCard: smallCard(200 + local.count), ttl: ttl).recordName)
            case 1:
                if let name = local.randomElement(using: &generator), case .live = try test.store.fetch(name) {
                    try test.store.revoke(name)
                }
            case 2:
                test.clock.advance(by: .seconds(Int.random(in: 0...300, using: &generator)))
                try test.store.sweep()
            case 3:
                try test.store.compact()
            default:
                break
            }
        }
    }
}
